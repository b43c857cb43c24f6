"""torch.compile pipeline for kdet capture --builds: a small model compiled by Inductor."""
import torch


class M(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.l1 = torch.nn.Linear(256, 512)
        self.l2 = torch.nn.Linear(512, 256)

    def forward(self, x):
        h = torch.nn.functional.gelu(self.l1(x))
        return torch.softmax(self.l2(h) * 0.5 + x, dim=-1).sum(dim=0)


torch.manual_seed(0)
m = M().cuda()
f = torch.compile(m)
y = f(torch.randn(64, 256, device="cuda"))
torch.cuda.synchronize()
print("torch.compile: ok", float(y.sum()))
