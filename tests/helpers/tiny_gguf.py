#!/usr/bin/env python3
"""tiny_gguf.py - write a tiny llama-architecture model in GGUF v3, with
random weights, for the inference-server end-to-end test (no model hub is
reachable from the test machines, and none is needed: the test measures
memory, not text).

    tiny_gguf.py OUT.gguf [--embd 64] [--layers 2] [--ctx 2048] [--seed 1]

Format (ggml's gguf.md): magic "GGUF", version 3, tensor and key counts,
the key/value pairs, the tensor infos (name, dims innermost first, type,
offset), padding to 32 bytes, then the F32 tensor data, each aligned to 32.
The tokenizer is SentencePiece-style ("llama") with <unk>, <s>, </s> and the
256 byte tokens, so any text tokenizes by byte fallback. Standard library
only.
"""
import argparse
import random
import struct

ALIGN = 32
T_U32, T_I32, T_F32, T_STR, T_ARR = 4, 5, 6, 8, 9


def gstr(s):
    b = s.encode()
    return struct.pack("<Q", len(b)) + b


def kv(key, vtype, value):
    out = gstr(key) + struct.pack("<I", vtype)
    if vtype == T_U32:
        out += struct.pack("<I", value)
    elif vtype == T_I32:
        out += struct.pack("<i", value)
    elif vtype == T_F32:
        out += struct.pack("<f", value)
    elif vtype == T_STR:
        out += gstr(value)
    elif vtype == T_ARR:
        etype, items = value
        out += struct.pack("<IQ", etype, len(items))
        for it in items:
            if etype == T_STR:
                out += gstr(it)
            elif etype == T_F32:
                out += struct.pack("<f", it)
            elif etype == T_I32:
                out += struct.pack("<i", it)
    return out


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("out")
    ap.add_argument("--embd", type=int, default=64)
    ap.add_argument("--layers", type=int, default=2)
    ap.add_argument("--heads", type=int, default=4)
    ap.add_argument("--ff", type=int, default=128)
    ap.add_argument("--ctx", type=int, default=2048)
    ap.add_argument("--seed", type=int, default=1)
    a = ap.parse_args()
    rnd = random.Random(a.seed)

    tokens = ["<unk>", "<s>", "</s>"] + ["<0x%02X>" % i for i in range(256)]
    types = [2, 3, 3] + [6] * 256          # unknown, control, byte
    scores = [0.0] * len(tokens)
    n_vocab, e, ff = len(tokens), a.embd, a.ff
    keys = [
        kv("general.architecture", T_STR, "llama"),
        kv("general.name", T_STR, "memtrend-tiny-random"),
        kv("general.alignment", T_U32, ALIGN),
        kv("llama.context_length", T_U32, a.ctx),
        kv("llama.embedding_length", T_U32, e),
        kv("llama.block_count", T_U32, a.layers),
        kv("llama.feed_forward_length", T_U32, ff),
        kv("llama.attention.head_count", T_U32, a.heads),
        kv("llama.attention.head_count_kv", T_U32, a.heads),
        kv("llama.rope.dimension_count", T_U32, e // a.heads),
        kv("llama.attention.layer_norm_rms_epsilon", T_F32, 1e-5),
        kv("tokenizer.ggml.model", T_STR, "llama"),
        kv("tokenizer.ggml.tokens", T_ARR, (T_STR, tokens)),
        kv("tokenizer.ggml.scores", T_ARR, (T_F32, scores)),
        kv("tokenizer.ggml.token_type", T_ARR, (T_I32, types)),
        kv("tokenizer.ggml.unknown_token_id", T_U32, 0),
        kv("tokenizer.ggml.bos_token_id", T_U32, 1),
        kv("tokenizer.ggml.eos_token_id", T_U32, 2),
    ]
    # (name, dims innermost first)
    tensors = [("token_embd.weight", (e, n_vocab)),
               ("output_norm.weight", (e,)),
               ("output.weight", (e, n_vocab))]
    for i in range(a.layers):
        p = "blk.%d." % i
        tensors += [(p + "attn_norm.weight", (e,)),
                    (p + "attn_q.weight", (e, e)),
                    (p + "attn_k.weight", (e, e)),
                    (p + "attn_v.weight", (e, e)),
                    (p + "attn_output.weight", (e, e)),
                    (p + "ffn_norm.weight", (e,)),
                    (p + "ffn_gate.weight", (e, ff)),
                    (p + "ffn_up.weight", (e, ff)),
                    (p + "ffn_down.weight", (ff, e))]
    infos, blobs, offset = b"", [], 0
    for name, dims in tensors:
        count = 1
        for d in dims:
            count *= d
        if name.endswith("norm.weight"):
            data = struct.pack("<%df" % count, *([1.0] * count))
        else:
            data = struct.pack("<%df" % count, *(
                rnd.gauss(0.0, 0.02) for _ in range(count)))
        infos += gstr(name) + struct.pack("<I", len(dims))
        infos += b"".join(struct.pack("<Q", d) for d in dims)
        infos += struct.pack("<IQ", 0, offset)   # type F32, offset
        pad = (-len(data)) % ALIGN
        blobs.append(data + b"\0" * pad)
        offset += len(data) + pad
    head = b"GGUF" + struct.pack("<IQQ", 3, len(tensors), len(keys))
    head += b"".join(keys) + infos
    head += b"\0" * ((-len(head)) % ALIGN)
    with open(a.out, "wb") as f:
        f.write(head)
        for b in blobs:
            f.write(b)


if __name__ == "__main__":
    main()
