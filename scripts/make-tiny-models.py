#!/usr/bin/env python3
"""Build medsynth's tiny TEST models and their PyTorch reference outputs (issue 16).

Random-weight models (fixed seed) in the layouts transformers.js 2.17 loads, written by hand in
plain PyTorch (no Hugging Face `transformers` on these machines), exported to ONNX:
  tests/fixtures/models/medsynth-test/tiny-bert           BERT encoder (feature extraction, BERTScore)
  tests/fixtures/models/medsynth-test/tiny-cross-encoder  BERT + pooler + 1-logit head (cross-encoder)
  tests/fixtures/models/medsynth-test/tiny-gpt2           GPT-2 causal LM (perplexity), byte-level BPE
and tests/fixtures/models/reference.json: token ids, token embeddings, pooled embeddings, cross-encoder
logits, BERTScore P/R/F1 (original greedy-matching algorithm) and token log-probs / perplexity,
all computed here in PyTorch on the same weights, with tokenisers implemented here from the
published algorithms (BERT basic + WordPiece; GPT-2 byte-level BPE).

These are test fixtures, never defaults: their numbers mean nothing about text quality.
Requires Debian's python3-torch and python3-onnx:  apt-get install -y python3-torch python3-onnx
Run from the repo root:  /usr/bin/python3 scripts/make-tiny-models.py  (Debian python, where python3-torch lives)
"""
import json, math, os, re, unicodedata
import torch
import torch.nn as nn

SEED = 20261201
torch.manual_seed(SEED)
OUT = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "tests", "fixtures", "models")
NS = "medsynth-test"

# ---------------------------------------------------------------- WordPiece vocabulary
SPECIALS = ["[PAD]", "[UNK]", "[CLS]", "[SEP]", "[MASK]"]
LETTERS = [chr(c) for c in range(ord("a"), ord("z") + 1)]
DIGITS = [str(d) for d in range(10)]
PUNCT = list(".,;:!?()%-/'\"=<>+")
WORDS = """the a of and in to with for was were is are on by at from or as be this that than not no
patients patient study studies trial trials randomized randomised controlled group groups treatment
therapy placebo dose doses effect effects risk ratio odds hazard mortality death survival outcome
outcomes primary secondary adverse events event significant significantly reduced increased lower
higher difference differences compared versus vs between among children adults women men years age
blood pressure heart failure cardiac stroke diabetes insulin glucose cancer tumor chemotherapy
surgery pain infection antibiotic antibiotics vaccine clinical evidence meta analysis review
systematic conclusion conclusions results methods background objective confidence interval ci
p mg kg day days week weeks month months hospital care quality life improved improve improvement
hypertension aspirin statin statins bleeding respiratory covid hydroxychloroquine glp sglt2i
may might suggest suggests associated association benefit benefits harm harms""".split()
SUFFIXES = ["ing", "ed", "es", "s", "ly", "tion", "al", "ic", "er", "ment"]
vocab = []
for t in SPECIALS + LETTERS + DIGITS + PUNCT + ["##" + c for c in LETTERS + DIGITS] + ["##" + s for s in SUFFIXES] + WORDS:
    if t not in vocab:
        vocab.append(t)
VOCAB = {t: i for i, t in enumerate(vocab)}
PAD, UNK, CLS, SEP = 0, 1, 2, 3


def bert_basic_tokenize(text):
    """BERT BasicTokenizer: clean, lowercase, strip accents, split on whitespace and punctuation."""
    text = "".join(" " if unicodedata.category(ch).startswith("Z") or ch in "\t\n\r" else ch for ch in text
                   if not (ord(ch) == 0 or ord(ch) == 0xFFFD or (unicodedata.category(ch).startswith("C") and ch not in "\t\n\r")))
    text = unicodedata.normalize("NFD", text.lower())
    text = "".join(ch for ch in text if unicodedata.category(ch) != "Mn")
    out = []
    for word in text.split():
        cur = ""
        for ch in word:
            cp = ord(ch)
            is_punct = (33 <= cp <= 47) or (58 <= cp <= 64) or (91 <= cp <= 96) or (123 <= cp <= 126) or unicodedata.category(ch).startswith("P")
            if is_punct:
                if cur:
                    out.append(cur)
                out.append(ch)
                cur = ""
            else:
                cur += ch
        if cur:
            out.append(cur)
    return out


def wordpiece(word):
    """Greedy longest-match-first WordPiece with '##' continuation; whole word -> [UNK] on failure."""
    if len(word) > 100:
        return ["[UNK]"]
    pieces, start = [], 0
    while start < len(word):
        end, cur = len(word), None
        while start < end:
            sub = word[start:end]
            if start > 0:
                sub = "##" + sub
            if sub in VOCAB:
                cur = sub
                break
            end -= 1
        if cur is None:
            return ["[UNK]"]
        pieces.append(cur)
        start = end
    return pieces


def bert_tokens(text):
    return [VOCAB[p] for w in bert_basic_tokenize(text) for p in wordpiece(w)]


def bert_encode(text, max_len=None):
    toks = bert_tokens(text)
    if max_len is not None:
        toks = toks[: max_len - 2]
    return [CLS] + toks + [SEP]


def bert_encode_pair(a, b, max_len=None):
    ta, tb = bert_tokens(a), bert_tokens(b)
    if max_len is not None:  # HF 'longest_first': drop from the longer sequence one token at a time
        while len(ta) + len(tb) + 3 > max_len:
            if len(ta) > len(tb):
                ta.pop()
            else:
                tb.pop()
    ids = [CLS] + ta + [SEP] + tb + [SEP]
    types = [0] * (len(ta) + 2) + [1] * (len(tb) + 1)
    return ids, types


def bert_tokenizer_json():
    added = [{"id": VOCAB[t], "content": t, "single_word": False, "lstrip": False, "rstrip": False, "normalized": False, "special": True} for t in SPECIALS]
    return {
        "version": "1.0", "truncation": None, "padding": None, "added_tokens": added,
        "normalizer": {"type": "BertNormalizer", "clean_text": True, "handle_chinese_chars": True, "strip_accents": None, "lowercase": True},
        "pre_tokenizer": {"type": "BertPreTokenizer"},
        "post_processor": {
            "type": "TemplateProcessing",
            "single": [{"SpecialToken": {"id": "[CLS]", "type_id": 0}}, {"Sequence": {"id": "A", "type_id": 0}}, {"SpecialToken": {"id": "[SEP]", "type_id": 0}}],
            "pair": [{"SpecialToken": {"id": "[CLS]", "type_id": 0}}, {"Sequence": {"id": "A", "type_id": 0}}, {"SpecialToken": {"id": "[SEP]", "type_id": 0}},
                     {"Sequence": {"id": "B", "type_id": 1}}, {"SpecialToken": {"id": "[SEP]", "type_id": 1}}],
            "special_tokens": {"[CLS]": {"id": "[CLS]", "ids": [CLS], "tokens": ["[CLS]"]}, "[SEP]": {"id": "[SEP]", "ids": [SEP], "tokens": ["[SEP]"]}},
        },
        "decoder": {"type": "WordPiece", "prefix": "##", "cleanup": True},
        "model": {"type": "WordPiece", "unk_token": "[UNK]", "continuing_subword_prefix": "##", "max_input_chars_per_word": 100, "vocab": VOCAB},
    }


BERT_TOKENIZER_CONFIG = {"tokenizer_class": "BertTokenizer", "do_lower_case": True, "model_max_length": 64,
                         "cls_token": "[CLS]", "sep_token": "[SEP]", "pad_token": "[PAD]", "unk_token": "[UNK]", "mask_token": "[MASK]"}

# ---------------------------------------------------------------- BERT in plain PyTorch
H, LAYERS, HEADS, INTER, MAXPOS = 32, 2, 4, 64, 64


def gelu(x):
    return 0.5 * x * (1.0 + torch.erf(x / math.sqrt(2.0)))


class BertLayer(nn.Module):
    def __init__(self):
        super().__init__()
        self.q, self.k, self.v, self.o = (nn.Linear(H, H) for _ in range(4))
        self.ln1, self.ln2 = nn.LayerNorm(H, eps=1e-12), nn.LayerNorm(H, eps=1e-12)
        self.inter, self.out = nn.Linear(H, INTER), nn.Linear(INTER, H)

    def forward(self, x, bias):
        B, T, _ = x.shape
        d = H // HEADS
        split = lambda t: t.view(B, T, HEADS, d).transpose(1, 2)
        q, k, v = split(self.q(x)), split(self.k(x)), split(self.v(x))
        att = torch.softmax(q @ k.transpose(-1, -2) / math.sqrt(d) + bias, dim=-1)
        ctx = (att @ v).transpose(1, 2).reshape(B, T, H)
        x = self.ln1(x + self.o(ctx))
        return self.ln2(x + self.out(gelu(self.inter(x))))


class TinyBert(nn.Module):
    def __init__(self, classifier=False):
        super().__init__()
        self.word, self.pos, self.tok_type = nn.Embedding(len(VOCAB), H), nn.Embedding(MAXPOS, H), nn.Embedding(2, H)
        self.ln = nn.LayerNorm(H, eps=1e-12)
        self.layers = nn.ModuleList(BertLayer() for _ in range(LAYERS))
        self.classifier = classifier
        if classifier:
            self.pooler, self.head = nn.Linear(H, H), nn.Linear(H, 1)

    def hidden_states(self, input_ids, attention_mask, token_type_ids):
        T = input_ids.shape[1]
        pos = torch.arange(T).unsqueeze(0)
        x = self.ln(self.word(input_ids) + self.pos(pos) + self.tok_type(token_type_ids))
        bias = (1.0 - attention_mask[:, None, None, :].float()) * -10000.0
        states = [x]
        for layer in self.layers:
            x = layer(x, bias)
            states.append(x)
        return states

    def forward(self, input_ids, attention_mask, token_type_ids):
        x = self.hidden_states(input_ids, attention_mask, token_type_ids)[-1]
        if not self.classifier:
            return x
        return self.head(torch.tanh(self.pooler(x[:, 0])))


def bert_config(classifier):
    cfg = {"model_type": "bert", "architectures": ["BertForSequenceClassification" if classifier else "BertModel"],
           "vocab_size": len(VOCAB), "hidden_size": H, "num_hidden_layers": LAYERS, "num_attention_heads": HEADS,
           "intermediate_size": INTER, "hidden_act": "gelu", "max_position_embeddings": MAXPOS, "type_vocab_size": 2,
           "layer_norm_eps": 1e-12, "pad_token_id": PAD, "medsynth_test_model": True, "seed": SEED}
    if classifier:
        cfg.update({"num_labels": 1, "id2label": {"0": "LABEL_0"}, "label2id": {"LABEL_0": 0}})
    return cfg

# ---------------------------------------------------------------- GPT-2 byte-level BPE


def bytes_to_unicode():
    bs = list(range(ord("!"), ord("~") + 1)) + list(range(ord("¡"), ord("¬") + 1)) + list(range(ord("®"), ord("ÿ") + 1))
    cs = bs[:]
    n = 0
    for b in range(256):
        if b not in bs:
            bs.append(b)
            cs.append(256 + n)
            n += 1
    return dict(zip(bs, [chr(c) for c in cs]))


B2U = bytes_to_unicode()
MERGES = [("Ġ", "t"), ("h", "e"), ("Ġt", "he"), ("i", "n"), ("e", "r"), ("Ġ", "a"), ("o", "n"), ("Ġ", "s"),
          ("e", "d"), ("Ġ", "p"), ("a", "t"), ("Ġ", "c"), ("r", "e"), ("Ġp", "a"), ("Ġ", "o"), ("e", "s"),
          ("t", "i"), ("Ġ", "w"), ("a", "n"), ("Ġa", "n"), ("Ġan", "d"), ("i", "on"), ("ti", "on"), ("Ġ", "r")]
GPT_VOCAB = {}
for b in range(256):
    GPT_VOCAB[B2U[b]] = len(GPT_VOCAB)
for a, b in MERGES:
    GPT_VOCAB[a + b] = len(GPT_VOCAB)
GPT_VOCAB["<|endoftext|>"] = len(GPT_VOCAB)
EOS = GPT_VOCAB["<|endoftext|>"]
GPT_PAT = re.compile(r"""'s|'t|'re|'ve|'m|'ll|'d| ?[A-Za-z]+| ?[0-9]+| ?[^\sA-Za-z0-9]+|\s+(?!\S)|\s+""")


def bpe(word):
    parts = list(word)
    ranks = {m: i for i, m in enumerate(MERGES)}
    while len(parts) > 1:
        pairs = [(ranks.get((parts[i], parts[i + 1]), 1e9), i) for i in range(len(parts) - 1)]
        r, _ = min(pairs)
        if r == 1e9:
            break
        a, b = MERGES[int(r)]
        merged, i = [], 0
        while i < len(parts):
            if i < len(parts) - 1 and parts[i] == a and parts[i + 1] == b:
                merged.append(a + b)
                i += 2
            else:
                merged.append(parts[i])
                i += 1
        parts = merged
    return parts


def gpt_tokens(text):
    out = []
    for w in GPT_PAT.findall(text):
        out += [GPT_VOCAB[p] for p in bpe("".join(B2U[b] for b in w.encode("utf-8")))]
    return out


def gpt_tokenizer_json():
    return {
        "version": "1.0", "truncation": None, "padding": None,
        "added_tokens": [{"id": EOS, "content": "<|endoftext|>", "single_word": False, "lstrip": False, "rstrip": False, "normalized": True, "special": True}],
        "normalizer": None,
        "pre_tokenizer": {"type": "ByteLevel", "add_prefix_space": False, "trim_offsets": True, "use_regex": True},
        "post_processor": {"type": "ByteLevel", "add_prefix_space": True, "trim_offsets": False, "use_regex": True},
        "decoder": {"type": "ByteLevel", "add_prefix_space": True, "trim_offsets": True, "use_regex": True},
        "model": {"type": "BPE", "dropout": None, "unk_token": None, "continuing_subword_prefix": "", "end_of_word_suffix": "",
                  "fuse_unk": False, "byte_fallback": False, "vocab": GPT_VOCAB, "merges": [f"{a} {b}" for a, b in MERGES]},
    }


GPT_H, GPT_LAYERS, GPT_HEADS, GPT_CTX = 32, 2, 4, 128


class GptBlock(nn.Module):
    def __init__(self):
        super().__init__()
        self.ln1, self.ln2 = nn.LayerNorm(GPT_H, eps=1e-5), nn.LayerNorm(GPT_H, eps=1e-5)
        self.qkv, self.proj = nn.Linear(GPT_H, 3 * GPT_H), nn.Linear(GPT_H, GPT_H)
        self.fc, self.out = nn.Linear(GPT_H, 4 * GPT_H), nn.Linear(4 * GPT_H, GPT_H)

    def forward(self, x, bias):
        B, T, _ = x.shape
        d = GPT_H // GPT_HEADS
        q, k, v = self.qkv(self.ln1(x)).split(GPT_H, dim=2)
        split = lambda t: t.view(B, T, GPT_HEADS, d).transpose(1, 2)
        q, k, v = split(q), split(k), split(v)
        att = torch.softmax(q @ k.transpose(-1, -2) / math.sqrt(d) + bias, dim=-1)
        x = x + self.proj((att @ v).transpose(1, 2).reshape(B, T, GPT_H))
        h = self.fc(self.ln2(x))
        h = 0.5 * h * (1.0 + torch.tanh(math.sqrt(2.0 / math.pi) * (h + 0.044715 * torch.pow(h, 3.0))))  # gelu_new
        return x + self.out(h)


class TinyGpt2(nn.Module):
    def __init__(self):
        super().__init__()
        self.wte, self.wpe = nn.Embedding(len(GPT_VOCAB), GPT_H), nn.Embedding(GPT_CTX, GPT_H)
        self.blocks = nn.ModuleList(GptBlock() for _ in range(GPT_LAYERS))
        self.ln_f = nn.LayerNorm(GPT_H, eps=1e-5)

    def forward(self, input_ids, attention_mask):
        T = input_ids.shape[1]
        # positions count attended tokens (left padding safe), as HF computes them from the mask
        pos = (torch.cumsum(attention_mask, dim=1) - 1).clamp(min=0)
        x = self.wte(input_ids) + self.wpe(pos)
        causal = torch.tril(torch.ones(T, T)).bool()
        allowed = causal[None, None, :, :] & attention_mask[:, None, None, :].bool()
        bias = (~allowed).float() * -10000.0
        for blk in self.blocks:
            x = blk(x, bias)
        return self.ln_f(x) @ self.wte.weight.T  # tied LM head


GPT_CONFIG = {"model_type": "gpt2", "architectures": ["GPT2LMHeadModel"], "vocab_size": len(GPT_VOCAB), "n_embd": GPT_H,
              "n_layer": GPT_LAYERS, "n_head": GPT_HEADS, "n_positions": GPT_CTX, "n_ctx": GPT_CTX, "bos_token_id": EOS,
              "eos_token_id": EOS, "activation_function": "gelu_new", "medsynth_test_model": True, "seed": SEED}
GPT_TOKENIZER_CONFIG = {"tokenizer_class": "GPT2Tokenizer", "model_max_length": GPT_CTX, "bos_token": "<|endoftext|>",
                        "eos_token": "<|endoftext|>", "unk_token": "<|endoftext|>", "add_prefix_space": False}

# ---------------------------------------------------------------- export + references


def write_json(path, obj):
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "w") as f:
        json.dump(obj, f, indent=1 if not path.endswith("tokenizer.json") else None, ensure_ascii=False)
        f.write("\n")


def init_(model):
    for p in model.parameters():
        nn.init.normal_(p, mean=0.0, std=0.2) if p.dim() > 1 else nn.init.normal_(p, mean=0.0, std=0.05)
    for m in model.modules():
        if isinstance(m, nn.LayerNorm):
            nn.init.normal_(m.weight, 1.0, 0.1)


def export(model, folder, inputs, input_names, output_name, file="model.onnx"):
    os.makedirs(os.path.join(folder, "onnx"), exist_ok=True)
    axes = {n: {0: "batch", 1: "sequence"} for n in input_names}
    axes[output_name] = {0: "batch", 1: "sequence"} if output_name != "logits" or "gpt" in folder else {0: "batch"}
    torch.onnx.export(model, inputs, os.path.join(folder, "onnx", file), input_names=input_names, output_names=[output_name],
                      dynamic_axes=axes, opset_version=14, do_constant_folding=True)


def f(t):
    return [round(float(v), 7) for v in t.reshape(-1).tolist()]


TEXTS = [
    "Aspirin reduced the risk of stroke in adults.",
    "Statins lowered mortality among patients with heart failure, but bleeding increased.",
    "No significant difference.",
    "The randomized controlled trial compared insulin versus placebo for 12 weeks (p = 0.03).",
    "Café-au-lait ☃ symptoms?",
]
QUERY = "does aspirin reduce stroke risk"
PAIRS = [("Aspirin reduced the risk of stroke in adults.", "Aspirin lowered stroke risk in older adults."),
         ("No significant difference.", "Statins lowered mortality among patients with heart failure.")]


def main():
    ref = {"seed": SEED, "note": "PyTorch reference outputs for medsynth's tiny test models (scripts/make-tiny-models.py)", "texts": TEXTS}
    with torch.no_grad():
        # encoder
        enc = TinyBert(False); init_(enc); enc.eval()
        d = os.path.join(OUT, NS, "tiny-bert")
        write_json(os.path.join(d, "config.json"), bert_config(False))
        write_json(os.path.join(d, "tokenizer.json"), bert_tokenizer_json())
        write_json(os.path.join(d, "tokenizer_config.json"), BERT_TOKENIZER_CONFIG)
        ex = torch.tensor([bert_encode(TEXTS[0])])
        export(enc, d, (ex, torch.ones_like(ex), torch.zeros_like(ex)), ["input_ids", "attention_mask", "token_type_ids"], "last_hidden_state")
        ref["encoder"] = []
        for t in TEXTS:
            ids = bert_encode(t)
            x = torch.tensor([ids])
            hs = enc(x, torch.ones_like(x), torch.zeros_like(x))[0]
            mean = hs.mean(0)
            cls = hs[0]
            ref["encoder"].append({"text": t, "ids": ids, "dims": list(hs.shape), "token_embeddings": f(hs),
                                   "mean": f(mean), "mean_normalized": f(mean / mean.norm()), "cls": f(cls), "cls_normalized": f(cls / cls.norm())})
        # truncation: max_length 8 keeps [CLS] + 6 tokens + [SEP]
        long_ids = bert_encode(TEXTS[3], 8)
        x = torch.tensor([long_ids])
        hs = enc(x, torch.ones_like(x), torch.zeros_like(x))[0]
        ref["encoder_truncated"] = {"text": TEXTS[3], "max_length": 8, "ids": long_ids, "cls_normalized": f(hs[0] / hs[0].norm())}
        # BERTScore, original algorithm (bert_score.utils.greedy_cos_idf): last-layer token
        # embeddings of the whole sequence, L2-normalised; every token (special ones included) can
        # be a match, but [CLS]/[SEP] weigh 0; weights are 1 or idf = log((M+1)/(df+1)) over the M
        # references; P/R are weighted means of the best cosine per candidate/reference token.
        ref["bertscore"] = []
        for use_idf in (False, True):
            refs = [p[1] for p in PAIRS]
            df = {}
            for r in refs:
                for tid in set(bert_tokens(r)):
                    df[tid] = df.get(tid, 0) + 1
            M = len(refs)
            weight = lambda tid: 0.0 if tid in (CLS, SEP) else (math.log((M + 1) / (df.get(tid, 0) + 1)) if use_idf else 1.0)
            for cand, refer in PAIRS:
                def emb(text):
                    ids = bert_encode(text)
                    x = torch.tensor([ids])
                    h = enc(x, torch.ones_like(x), torch.zeros_like(x))[0].double()
                    return h / h.norm(dim=1, keepdim=True), ids
                c, cid = emb(cand)
                r, rid = emb(refer)
                sim = c @ r.T
                wc = torch.tensor([weight(t) for t in cid], dtype=torch.float64)
                wr = torch.tensor([weight(t) for t in rid], dtype=torch.float64)
                P = float((sim.max(1).values * wc).sum() / wc.sum())
                R = float((sim.max(0).values * wr).sum() / wr.sum())
                F = 2 * P * R / (P + R)
                b = {"precision": 0.1, "recall": 0.2, "f1": 0.15}
                ref["bertscore"].append({"candidate": cand, "reference": refer, "idf": use_idf, "precision": P, "recall": R, "f1": F,
                                         "rescaled": {"baseline": b, "precision": (P - b["precision"]) / (1 - b["precision"]),
                                                      "recall": (R - b["recall"]) / (1 - b["recall"]), "f1": (F - b["f1"]) / (1 - b["f1"])}})
        # cross-encoder
        ce = TinyBert(True); init_(ce); ce.eval()
        d = os.path.join(OUT, NS, "tiny-cross-encoder")
        write_json(os.path.join(d, "config.json"), bert_config(True))
        write_json(os.path.join(d, "tokenizer.json"), bert_tokenizer_json())
        write_json(os.path.join(d, "tokenizer_config.json"), BERT_TOKENIZER_CONFIG)
        ids, types = bert_encode_pair(QUERY, TEXTS[0])
        x = torch.tensor([ids])
        export(ce, d, (x, torch.ones_like(x), torch.tensor([types])), ["input_ids", "attention_mask", "token_type_ids"], "logits")
        ref["cross_encoder"] = {"query": QUERY, "docs": []}
        for t in TEXTS:
            ids, types = bert_encode_pair(QUERY, t)
            x = torch.tensor([ids])
            ref["cross_encoder"]["docs"].append({"text": t, "ids": ids, "token_type_ids": types, "logit": float(ce(x, torch.ones_like(x), torch.tensor([types]))[0, 0])})
        ids, types = bert_encode_pair(QUERY, TEXTS[3], 12)
        x = torch.tensor([ids])
        ref["cross_encoder"]["truncated"] = {"text": TEXTS[3], "max_length": 12, "ids": ids, "logit": float(ce(x, torch.ones_like(x), torch.tensor([types]))[0, 0])}
        # GPT-2
        lm = TinyGpt2(); init_(lm); lm.eval()
        d = os.path.join(OUT, NS, "tiny-gpt2")
        write_json(os.path.join(d, "config.json"), GPT_CONFIG)
        write_json(os.path.join(d, "tokenizer.json"), gpt_tokenizer_json())
        write_json(os.path.join(d, "tokenizer_config.json"), GPT_TOKENIZER_CONFIG)
        write_json(os.path.join(d, "generation_config.json"), {"bos_token_id": EOS, "eos_token_id": EOS})
        ex = torch.tensor([gpt_tokens(TEXTS[0])])
        export(lm, d, (ex, torch.ones_like(ex)), ["input_ids", "attention_mask"], "logits", file="decoder_model_merged.onnx")
        ref["causal_lm"] = []
        for t in TEXTS[:4]:
            ids = gpt_tokens(t)
            x = torch.tensor([ids])
            logp = torch.log_softmax(lm(x, torch.ones_like(x))[0].double(), dim=-1)
            token_logprobs = [float(logp[i - 1, ids[i]]) for i in range(1, len(ids))]
            ref["causal_lm"].append({"text": t, "ids": ids, "token_logprobs": token_logprobs,
                                     "perplexity": math.exp(-sum(token_logprobs) / len(token_logprobs))})
    write_json(os.path.join(OUT, "reference.json"), ref)
    print("wrote", OUT)


if __name__ == "__main__":
    main()
