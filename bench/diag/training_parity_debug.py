import copy, torch, torchvision, torch.nn.functional as F, nimble, sys
sys.path.insert(0, "python/tests")
from nimble._training import relative_difference as rd
torch.backends.cudnn.allow_tf32=False; torch.backends.cuda.matmul.allow_tf32=False
from test_training import Net
def run(make_model, opt_f, mode, steps=3, bs=8, img=16):
    torch.manual_seed(0)
    m = make_model().cuda(); twin = copy.deepcopy(m)
    o = opt_f(m.parameters()); to = opt_f(twin.parameters())
    x = torch.randn(bs,3,img,img,device="cuda"); y = torch.randint(0,10,(bs,),device="cuda")
    step = nimble.accelerate_training(m, F.cross_entropy, o, (x,y), mode=mode, iters=3, check_steps=0)
    st = [v for s in o.state.values() for k,v in s.items() if k=="step"][:1]
    print("  step state", st)
    for k in range(steps):
        l1 = step(x,y)
        to.zero_grad(set_to_none=True); l2 = F.cross_entropy(twin(x),y); l2.backward(); to.step()
        print(f"  {mode} step {k}: loss {l1.item():.6f} vs {l2.item():.6f}; params {max(rd(p,q) for p,q in zip(m.parameters(), twin.parameters())):.2e}", st)
adam = lambda p: torch.optim.Adam(p, lr=1e-3, capturable=True)
sgd = lambda p: torch.optim.SGD(p, lr=0.01, momentum=0.9)
print("Net adam single"); run(Net, adam, "single")
print("resnet50 sgd single"); run(lambda: torchvision.models.resnet50(num_classes=10), sgd, "single", bs=32, img=32)
print("resnet50 sgd multi"); run(lambda: torchvision.models.resnet50(num_classes=10), sgd, "multi", bs=32, img=32)
