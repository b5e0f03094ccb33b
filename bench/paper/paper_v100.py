"""The paper's own numbers, measured on an NVIDIA V100, that make_figures.py prints beside ours.

Kwon, Yu, Jeong, Chun, "Nimble: Lightweight and Parallel GPU Task Scheduling for Deep Learning",
NeurIPS 2020 (arXiv 2012.02732). Only numbers the paper states in its text or in a table are here;
per-network values it shows only as bars (Figures 2a, 3c, 5 and 7) are not, and print as PLOT_ONLY.
"""

PLOT_ONLY = "n/a (plot only)"

# Evaluation section: the system the paper measured on.
SETUP = "NVIDIA V100, Intel Xeon E5-2695 v4, PyTorch 1.4, CUDA 10.2, cuDNN 8.0.2"

# Abstract: the largest speedups over PyTorch (inference; training) and over TensorRT and TVM (inference).
MAX_INFERENCE_SPEEDUP_OVER_PYTORCH = 22.34
MAX_TRAINING_SPEEDUP_OVER_PYTORCH = 3.61
MAX_INFERENCE_SPEEDUP_OVER_TENSORRT = 2.81
MAX_INFERENCE_SPEEDUP_OVER_TVM = 1.70

# Section 1 (the motivation behind Figure 2): PyTorch leaves the GPU idle for up to 91 % of an
# inference (TensorFlow 71 %), and a C++ program replaying PyTorch's GPU tasks with most of the
# scheduling removed runs ResNet-50 2.37x faster than PyTorch.
PYTORCH_MAX_IDLE_SHARE = 0.91
TENSORFLOW_MAX_IDLE_SHARE = 0.71
CPP_RUNNER_SPEEDUP_RESNET50 = 2.37

# Table 1: inference speedup of multi-stream over single-stream Nimble, and "Deg.", the degree of
# logical concurrency (the width of the network's operator graph).
TABLE1 = {
    "Inception-v3": {"speedup": 1.09, "deg": 6},
    "DARTS": {"speedup": 1.37, "deg": 7},
    "AmoebaNet": {"speedup": 1.45, "deg": 11},
    "NASNet-A (mobile)": {"speedup": 1.88, "deg": 12},
    "NASNet-A (large)": {"speedup": 1.31, "deg": 15},
}

# Our model names for the paper's networks. DARTS, AmoebaNet and NASNet-A (mobile) are built from their
# published cells in the DARTS ImageNet skeleton (samples/models/cell_networks.py).
PAPER_NAME = {
    "resnet50": "ResNet-50",
    "inception_v3": "Inception-v3",
    "mobilenet_v2": "MobileNetV2",
    "efficientnet_b0": "EfficientNet-B0",
    "nasnetalarge": "NASNet-A (large)",
    "darts": "DARTS",
    "amoebanet": "AmoebaNet",
    "nasnet_mobile": "NASNet-A (mobile)",
}
