"""Generate mode decodes by evaluator.decoding.GREEDY whatever the checkpoint's generation_config says."""
from __future__ import annotations

import json
import shutil

import pytest

from evaluator.backends import create_backend, encode_prompt
from evaluator.decoding import GREEDY

PROMPTS = ["What is the best way to clean a screen?\nA. x\nB. y\nAnswer:", "Short?"]
MAX_NEW = 12


@pytest.fixture(scope="module")
def penalised_model_dir(tiny_model_dir, tmp_path_factory):
    """The tiny model with a generation_config.json that would change greedy output if honoured."""
    out = tmp_path_factory.mktemp("penalised") / "model"
    shutil.copytree(tiny_model_dir, out)
    path = out / "generation_config.json"
    config = json.loads(path.read_text())
    config.update(repetition_penalty=5.0, no_repeat_ngram_size=1)
    path.write_text(json.dumps(config))
    return out


def manual_greedy(model, tokenizer, prompt: str) -> str:
    """Argmax over full forward passes: what plain greedy decoding means, with no generate() involved."""
    import torch
    ids = encode_prompt(tokenizer, prompt, use_chat_template=False)
    new: list[int] = []
    with torch.inference_mode():
        for _ in range(MAX_NEW):
            token = int(model(input_ids=torch.tensor([ids + new])).logits[0, -1].argmax())
            if token == tokenizer.eos_token_id:
                break
            new.append(token)
    return tokenizer.decode(new, skip_special_tokens=True)


def test_generate_ignores_the_checkpoint_generation_config(penalised_model_dir):
    backend = create_backend("transformers", str(penalised_model_dir), batch_size=4)
    assert backend.model.generation_config.repetition_penalty == 5.0  # the checkpoint's settings did load
    expected = [manual_greedy(backend.model, backend.tokenizer, p) for p in PROMPTS]
    assert backend.generate(PROMPTS, max_new_tokens=MAX_NEW) == expected
    assert backend.model.generation_config.repetition_penalty == 5.0  # restored after the call

    # The test has teeth: honouring the checkpoint's config changes this output.
    import torch
    ids = torch.tensor([encode_prompt(backend.tokenizer, PROMPTS[0], use_chat_template=False)])
    with torch.inference_mode():
        honoured = backend.model.generate(input_ids=ids, max_new_tokens=MAX_NEW, pad_token_id=backend.pad_id)
        first = int(backend.model(input_ids=ids).logits[0, -1].argmax())
    assert backend.tokenizer.decode(honoured[0, ids.shape[1]:], skip_special_tokens=True) != expected[0]

    # Fields GREEDY leaves unset would be filled from the checkpoint by generate(): not these either.
    backend.model.generation_config.suppress_tokens = [first]
    backend.model.generation_config.bad_words_ids = [[first]]
    assert backend.generate(PROMPTS, max_new_tokens=MAX_NEW) == expected


def test_the_rule_is_recorded_with_the_run(tiny_backend):
    decoding = tiny_backend.describe()["decoding"]
    assert decoding == GREEDY.describe() and decoding["name"] == "greedy-v1"
    assert decoding["repetition_penalty"] == 1.0 and decoding["no_repeat_ngram_size"] == 0
