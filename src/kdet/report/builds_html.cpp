//===- report/builds_html.cpp - the triage page of a builds comparison -------===//
//
// One self-contained page (no external files, no network): the summary line,
// the builds, the counts by status, then one table row per kernel, the ones
// that differ first. A small inline script adds a status filter, a text search
// and sorting by column; without it the page reads fully.
//
//===----------------------------------------------------------------------===//
#include "kdet/report/builds_inside.hpp"
#include "kdet/report/builds_report.hpp"
#include "kdet/report/scan_report.hpp"

#include <fmt/format.h>

namespace kdet::report {

using capture::BuildsResult;
using capture::Kernel;
using capture::KernelStatus;

namespace {

constexpr const char* k_css = R"css(
body{font:14px/1.4 system-ui,sans-serif;margin:2em;color:#222}
h1{font-size:1.5em}.summary{font-size:1.2em;font-weight:600}.bad{color:#b00020}.good{color:#137333}
table{border-collapse:collapse;font-size:12px}td,th{border:1px solid #ddd;padding:2px 6px;text-align:left;vertical-align:top}
th{cursor:pointer;background:#f3f3f3}tr.nondeterministic td{background:#fde7e9}tr.input-differs td{background:#fff4e0}
tr.not-in-every-build td{background:#eef}td.name{max-width:28em;overflow-wrap:anywhere}code{font-size:12px}
#controls{position:sticky;top:0;background:#fff;padding:.4em 0;border-bottom:1px solid #ccc}
#controls label{margin-right:1em}
)css";

constexpr const char* k_script = R"js(
(function(){
var table=document.getElementById('kernels');if(!table)return;
var body=table.tBodies[0];var rows=[].slice.call(body.rows);
var bar=document.createElement('div');bar.id='controls';
var st=document.createElement('select');st.id='filter-status';
['','nondeterministic','input-differs','not-in-every-build','same'].forEach(function(v){var o=document.createElement('option');o.value=v;o.textContent=v||'every status';st.appendChild(o);});
var tx=document.createElement('input');tx.type='search';tx.id='filter-text';tx.placeholder='name, target, compiler';
var shown=document.createElement('span');shown.id='filter-count';
function lab(t,e){var l=document.createElement('label');l.textContent=t+' ';l.appendChild(e);bar.appendChild(l);}
lab('Status',st);lab('Find',tx);bar.appendChild(shown);table.parentNode.insertBefore(bar,table);
var text=rows.map(function(r){return r.textContent.toLowerCase();});
function apply(){var s=st.value,q=tx.value.toLowerCase(),n=0;
for(var i=0;i<rows.length;i++){var ok=(!s||rows[i].className===s)&&(!q||text[i].indexOf(q)>=0);rows[i].hidden=!ok;if(ok)n++;}
shown.textContent=n+' of '+rows.length+' kernels';}
st.onchange=apply;tx.oninput=apply;apply();
var ths=table.tHead.rows[0].cells;
for(var c=0;c<ths.length;c++)(function(c){ths[c].onclick=function(){
var dir=ths[c].dataset.dir==='1'?-1:1;ths[c].dataset.dir=dir===1?'1':'-1';
var keyed=rows.map(function(r,i){return [r.cells[c].dataset.key||r.cells[c].textContent,i];});
keyed.sort(function(a,b){return a[0]<b[0]?-dir:a[0]>b[0]?dir:a[1]-b[1];});
var f=document.createDocumentFragment();keyed.forEach(function(k){f.appendChild(rows[k[1]]);});body.appendChild(f);
rows=keyed.map(function(k){return rows[k[1]];});text=rows.map(function(r){return r.textContent.toLowerCase();});};})(c);
})();
)js";

int rank(KernelStatus s) {
  return s == KernelStatus::nondeterministic     ? 0
         : s == KernelStatus::input_differs      ? 1
         : s == KernelStatus::not_in_every_build ? 2
                                                 : 3;
}

std::string row(const Kernel& k) {
  std::string stage, how;
  if (k.first_varying) {
    const auto& st = k.stages[*k.first_varying];
    stage = fmt::format("{}. {} {} <code>{}</code>", *k.first_varying + 1, xml_escape(st.kind),
                        xml_escape(st.program), xml_escape(st.options));
  }
  if (std::string w = inside_varies_words(k, k.present.size()); !w.empty())
    how = xml_escape(w) + "<br>";
  if (k.difference)
    how += xml_escape(k.difference->output_kind + ": " + k.difference->summary);
  else if (!k.input_detail.empty())
    how = xml_escape(k.input_detail);
  if (k.reach) how += "<br>reach: " + xml_escape(k.reach->summary);
  std::string notes;
  for (const auto& n : k.notes)
    notes += "<br>" + xml_escape(n);
  if (!k.next.empty()) notes += "<br><code>" + xml_escape(k.next) + "</code>";
  std::string builds;
  for (size_t b : k.present)
    builds += (builds.empty() ? "" : ",") + std::to_string(b + 1);
  return fmt::format(
      "<tr class=\"{0}\"><td data-key=\"{1}\">{0}</td><td class=\"name\" title=\"{2}\">{3}</td>"
      "<td>{4}</td><td>{5}</td><td>{6}</td><td>{7}{8}</td><td>{9}</td><td>{10}</td></tr>\n",
      to_string(k.status), rank(k.status), xml_escape(k.name), xml_escape(k.display),
      xml_escape(k.target), xml_escape(k.compiler), stage, how, notes,
      k.status == KernelStatus::same || k.status == KernelStatus::not_in_every_build
          ? ""
          : (k.final_output_varies ? "differs" : "same"),
      builds);
}

} // namespace

std::string builds_to_html(const BuildsResult& r) {
  size_t same = r.count(KernelStatus::same);
  std::string out = "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">"
                    "<meta name=\"viewport\" content=\"width=device-width,initial-scale=1\">"
                    "<title>kdet: builds compared</title><style>";
  out += k_css;
  out += "</style></head><body>\n<h1>kdet capture: builds compared kernel by kernel</h1>\n";
  nlohmann::json j = builds_to_json(r);
  out += fmt::format("<p class=\"summary {}\">{}</p>\n", same == r.kernels.size() ? "good" : "bad",
                     xml_escape(j["summary"]["text"].get<std::string>()));
  if (j["summary"].contains("reach_text"))
    out += fmt::format("<p class=\"reach\">reach: {}</p>\n",
                       xml_escape(j["summary"]["reach_text"].get<std::string>()));
  out +=
      fmt::format("<p>{}</p>\n", r.warm ? "Warm: kernel caches were kept between builds (--warm)."
                                 : r.caches.empty() ? "Captures made apart (kdet capture compare)."
                                                    : "Cold: every known kernel cache was a fresh "
                                                      "empty folder in every build.");
  out += "<table><thead><tr><th>build</th><th>pipeline</th><th>compiles</th><th>kernels</th>"
         "<th>folder</th></tr></thead><tbody>\n";
  for (size_t b = 0; b < r.builds.size(); ++b) {
    const auto& i = r.builds[b];
    out +=
        fmt::format("<tr><td>{}</td><td>{}</td><td>{}</td><td>{}</td><td><code>{}</code></td>"
                    "</tr>\n",
                    b + 1, xml_escape(i.pipeline_status), i.compiles, i.kernels, xml_escape(i.dir));
  }
  out += "</tbody></table>\n";
  for (const auto& f : r.failed_builds)
    out += "<p class=\"bad\">FAILED: " + xml_escape(f) + "</p>\n";
  out += inside_html(r);
  out += "<h2>Kernels</h2>\n<table id=\"kernels\"><thead><tr><th>status</th><th>kernel</th>"
         "<th>target</th><th>first compiler</th><th>first nondeterministic stage</th><th>how</th>"
         "<th>final artifact</th><th>builds</th></tr></thead><tbody>\n";
  for (const auto& k : r.kernels)
    out += row(k);
  out += "</tbody></table>\n<script>";
  out += k_script;
  out += "</script>\n</body></html>\n";
  return out;
}

} // namespace kdet::report
