"""BERT-base for sequence classification, in plain torch, with random weights.

The architecture of Devlin et al., "BERT: Pre-training of Deep Bidirectional Transformers for Language
Understanding" (2019), base size: word, position and token-type embeddings summed and normalised; 12
encoder layers of 12-head self-attention and a 3072-wide GELU feed-forward block, each followed by a
residual connection and layer normalisation (post-norm); the [CLS] position pooled through a tanh
layer; a linear classifier. 109 M parameters with two labels (`python3 bert.py` prints the count).
Dropout 0.1 everywhere, as in the paper's fine-tuning.

Written out here instead of taken from a library so that torch.fx can trace it (no control flow on
tensor shapes): the training step's multi-stream forward needs the op graph, and the three attention
projections of each layer are independent ops.
"""

import math
import sys

import torch
from torch import nn
from torch.nn import functional as F

VOCAB, HIDDEN, LAYERS, HEADS, FFN, MAX_POSITIONS, TYPES = 30522, 768, 12, 12, 3072, 512, 2


class SelfAttention(nn.Module):
    def __init__(self, hidden: int, heads: int, dropout: float) -> None:
        super().__init__()
        self.heads, self.head_dim = heads, hidden // heads
        self.query, self.key, self.value = nn.Linear(hidden, hidden), nn.Linear(hidden, hidden), nn.Linear(hidden, hidden)
        self.dropout = nn.Dropout(dropout)

    def split(self, x: torch.Tensor) -> torch.Tensor:  # [B, S, H] -> [B, heads, S, head_dim]
        return x.view(x.size(0), x.size(1), self.heads, self.head_dim).transpose(1, 2)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        q, k, v = self.split(self.query(x)), self.split(self.key(x)), self.split(self.value(x))
        scores = torch.matmul(q, k.transpose(-1, -2)) * (1.0 / math.sqrt(self.head_dim))
        context = torch.matmul(self.dropout(F.softmax(scores, dim=-1)), v)
        return context.transpose(1, 2).reshape(x.size(0), x.size(1), self.heads * self.head_dim)


class Layer(nn.Module):
    def __init__(self, hidden: int, heads: int, ffn: int, dropout: float) -> None:
        super().__init__()
        self.attention = SelfAttention(hidden, heads, dropout)
        self.attention_out = nn.Linear(hidden, hidden)
        self.attention_norm = nn.LayerNorm(hidden, eps=1e-12)
        self.intermediate = nn.Linear(hidden, ffn)
        self.output = nn.Linear(ffn, hidden)
        self.output_norm = nn.LayerNorm(hidden, eps=1e-12)
        self.dropout = nn.Dropout(dropout)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        x = self.attention_norm(x + self.dropout(self.attention_out(self.attention(x))))
        return self.output_norm(x + self.dropout(self.output(F.gelu(self.intermediate(x)))))


class BertForClassification(nn.Module):
    """input_ids [batch, sequence] (int64) -> logits [batch, labels]; one segment, no padding mask."""

    def __init__(self, labels: int = 2, layers: int = LAYERS, hidden: int = HIDDEN, heads: int = HEADS,
                 ffn: int = FFN, vocab: int = VOCAB, dropout: float = 0.1) -> None:
        super().__init__()
        self.words = nn.Embedding(vocab, hidden)
        self.positions = nn.Embedding(MAX_POSITIONS, hidden)
        self.types = nn.Embedding(TYPES, hidden)
        self.embedding_norm = nn.LayerNorm(hidden, eps=1e-12)
        self.dropout = nn.Dropout(dropout)
        self.layers = nn.ModuleList([Layer(hidden, heads, ffn, dropout) for _ in range(layers)])
        self.pooler = nn.Linear(hidden, hidden)
        self.classifier = nn.Linear(hidden, labels)
        for module in self.modules():  # BERT's initialisation: N(0, 0.02), zero biases
            if isinstance(module, (nn.Linear, nn.Embedding)):
                nn.init.normal_(module.weight, std=0.02)
            if isinstance(module, nn.Linear):
                nn.init.zeros_(module.bias)

    def forward(self, input_ids: torch.Tensor) -> torch.Tensor:
        positions = torch.arange(input_ids.size(1), device=input_ids.device).unsqueeze(0)
        x = self.words(input_ids) + self.positions(positions) + self.types(torch.zeros_like(input_ids))
        x = self.dropout(self.embedding_norm(x))
        for layer in self.layers:
            x = layer(x)
        pooled = torch.tanh(self.pooler(x[:, 0]))
        return self.classifier(self.dropout(pooled))


def main() -> int:
    model = BertForClassification()
    print(f"BERT-base classifier: {sum(p.numel() for p in model.parameters()) / 1e6:.1f} M parameters")
    return 0


if __name__ == "__main__":
    sys.exit(main())
