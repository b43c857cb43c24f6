"""kdet recipe: LLVM IR (text or bitcode) to PTX through llvmlite's NVPTX back end.

  kdet run kernel.ll --py "$(python3 -m kdet_stage llvmlite_ptx)":compile -- -mcpu=sm_80 -O3

Options (each optional): -mcpu=sm_XX (default sm_70), -mattr=+ptxNN, -O0 .. -O3 (default -O3),
-mtriple=TRIPLE (default the module's, else nvptx64-nvidia-cuda). The module gets the target's
data layout, is optimised at that level (LLVM's legacy pass manager builder, as llvmlite offers
it) and emitted as PTX text. Each call parses the module anew, so runs share only the process.
"""
import llvmlite
import llvmlite.binding as llvm

llvm.initialize()
llvm.initialize_all_targets()
llvm.initialize_all_asmprinters()


def KDET_STAGE_VERSION():
    return "llvmlite {}, LLVM {}".format(
        llvmlite.__version__, ".".join(str(v) for v in llvm.llvm_version_info))


def _options(options):
    o = {"cpu": "sm_70", "features": "", "opt": 3, "triple": ""}
    for arg in options:
        if arg.startswith("-mcpu="):
            o["cpu"] = arg[len("-mcpu="):]
        elif arg.startswith("-mattr="):
            o["features"] = arg[len("-mattr="):]
        elif arg.startswith("-mtriple="):
            o["triple"] = arg[len("-mtriple="):]
        elif arg in ("-O0", "-O1", "-O2", "-O3"):
            o["opt"] = int(arg[2])
        else:
            raise ValueError("unknown option {!r}: use -mcpu=, -mattr=, -mtriple=, -O0..-O3".format(arg))
    return o


def compile(data, options):
    o = _options(options)
    if data[:2] == b"BC" or data[:4] == b"\xde\xc0\x17\x0b":
        module = llvm.parse_bitcode(data)
    else:
        module = llvm.parse_assembly(data.decode("utf-8"))
    module.verify()
    triple = o["triple"] or module.triple or "nvptx64-nvidia-cuda"
    module.triple = triple
    target = llvm.Target.from_triple(triple)
    machine = target.create_target_machine(cpu=o["cpu"], features=o["features"], opt=o["opt"])
    module.data_layout = str(machine.target_data)
    if o["opt"] > 0:
        builder = llvm.PassManagerBuilder()
        builder.opt_level = o["opt"]
        passes = llvm.ModulePassManager()
        builder.populate(passes)
        passes.run(module)
    return machine.emit_assembly(module).encode("utf-8")
