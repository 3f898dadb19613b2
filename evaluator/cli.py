"""`python -m evaluator`: run the engine on a local question file, no database.
`python -m evaluator convert`: make a GGUF file from a checkpoint (evaluator/gguf_convert.py).
`python -m evaluator profile`: a GGUF file's phone-class cost profile (evaluator/ondevice_profile.py)."""
from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path
from typing import Sequence

from .backends import BackendError, available_backends, create_backend
from .efficiency import fixed_sample, measure_efficiency
from .engine import MODES, run_evaluation
from .gguf_convert import QUANTS, ConvertError, convert
from .prompts import TEMPLATES, get_template, render_questions
from .metrics import summarize
from . import ondevice_profile
from .protocols import PROTOCOLS, ProtocolError, apply_guesses, get_protocol
from .protocols import render_questions as protocol_prompts
from .questions import QuestionFileError, load_questions
from .variants import VariantError, parse_variants


def build_parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog="python -m evaluator", description=__doc__)
    p.add_argument("--model", required=True, help="local folder or hub id (safetensors only; no remote code); "
                                                  "with --backend llamacpp a GGUF file")
    p.add_argument("--revision", default=None, help="hub revision (commit sha) to pin")
    p.add_argument("--questions", required=True, help="JSONL or CSV: question_id, question, A..J or options, [answer], [topic]")
    p.add_argument("--out", required=True, help="per-(question, variant) rows, JSONL")
    p.add_argument("--template", default="default", choices=sorted(TEMPLATES))
    p.add_argument("--shots", type=int, default=0, help="k exemplars per topic from --dev")
    p.add_argument("--dev", default=None, help="dev-split question file for few-shot exemplars")
    p.add_argument("--variants", default="original", help="comma list: original,fixed-A..fixed-D,R1..R4, or all")
    p.add_argument("--backend", default="transformers", choices=available_backends())
    p.add_argument("--device", default="cpu", help="cpu or cuda (the vLLM backend runs on CPU with its CPU build)")
    p.add_argument("--dtype", default="auto", help="auto (float32 on CPU, bfloat16 on CUDA), float16, ...")
    p.add_argument("--batch-size", type=int, default=8)
    p.add_argument("--chunk-size", type=int, default=256)
    p.add_argument("--seed", type=int, default=0)
    p.add_argument("--mode", default="logprobs", choices=MODES)
    p.add_argument("--protocol", default=None, choices=sorted(PROTOCOLS),
                   help="a publisher's own protocol in place of --template/--shots/--mode (needs --dev): "
                        "mmlu-pro-cot (5-shot chain of thought; unread answers wrong) or mmlu-pro-cot-guess "
                        "(unread answers guessed as MMLU-Pro's script does)")
    p.add_argument("--max-new-tokens", type=int, default=None,
                   help="generate mode: 32 by default; a protocol: its own (2048 for mmlu-pro-cot)")
    p.add_argument("--chat-template", action=argparse.BooleanOptionalAction, default=False,
                   help="wrap the prompt in the tokenizer's chat template (instruct models)")
    p.add_argument("--summary", default=None, help="write the summary JSON here instead of stdout")
    p.add_argument("--efficiency", action=argparse.BooleanOptionalAction, default=True,
                   help="measure load time, latency, throughput, memory (default on)")
    p.add_argument("--threads", type=int, default=None, help="llamacpp: CPU threads (default 4)")
    p.add_argument("--tokenizer", default=None,
                   help="llamacpp: the base model's Hugging Face tokenizer (folder or hub id) every prompt's token "
                        "ids must equal (default: the file's general.base_model; unchecked where it names none)")
    p.add_argument("--quiet", action="store_true")
    return p


def build_convert_parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog="python -m evaluator convert",
                                description="Convert a checkpoint to GGUF with the pinned llama.cpp's converter, "
                                            "then quantize it with llama.cpp's quantizer (no importance matrix).")
    p.add_argument("--model", required=True, help="local checkpoint folder or hub id (safetensors)")
    p.add_argument("--revision", default=None, help="hub revision (commit sha) to pin")
    p.add_argument("--out", required=True, help="the GGUF file to write (its recipe goes to OUT.recipe.json)")
    p.add_argument("--quant", required=True, choices=sorted(QUANTS))
    p.add_argument("--threads", type=int, default=None, help="quantizer threads (default: all)")
    return p


def build_profile_parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog="python -m evaluator profile",
                                description="A GGUF file's cost profile on this machine's CPU (no GPU), in a fresh "
                                            "process: pp/tg tokens/s as llama-bench measures them, time to first "
                                            "token of a median Mobile-MMLU prompt, peak RSS, file size, CPU, energy "
                                            "(RAPL, where readable). A server CPU's figures: a proxy, not a phone.")
    p.add_argument("--model", required=True, help="the GGUF file")
    p.add_argument("--threads", type=int, default=ondevice_profile.DEFAULT_THREADS)
    p.add_argument("--repeats", type=int, default=ondevice_profile.REPEATS)
    p.add_argument("--pp", type=int, default=ondevice_profile.PP_TOKENS, help="prompt-processing batch (pp512)")
    p.add_argument("--tg", type=int, default=ondevice_profile.TG_TOKENS, help="tokens generated (tg128)")
    p.add_argument("--mmap", action=argparse.BooleanOptionalAction, default=True,
                   help="memory-map the file, as phone runtimes do (default)")
    p.add_argument("--json", action="store_true", help="the JSON only, no line for people")
    p.add_argument("--rapl-root", default=str(ondevice_profile.RAPL_ROOT), help=argparse.SUPPRESS)
    p.add_argument("--in-process", action="store_true", help=argparse.SUPPRESS)  # the fresh process itself
    return p


def profile_main(argv: Sequence[str]) -> int:
    args = build_profile_parser().parse_args(argv)
    kwargs = {"threads": args.threads, "repeats": args.repeats, "pp": args.pp, "tg": args.tg, "mmap": args.mmap,
              "rapl_root": args.rapl_root}
    try:
        if args.in_process:
            profile = ondevice_profile.profile_in_process(args.model, **kwargs)
        else:
            profile = ondevice_profile.measure_profile(args.model, **kwargs)
    except (ondevice_profile.ProfileError, BackendError, OSError) as exc:
        _refuse(exc, default="PROFILE_ERROR")
        return 2
    print(json.dumps(profile, default=str) if args.in_process else json.dumps(profile, indent=2, default=str))
    if not (args.json or args.in_process):
        print(ondevice_profile.describe(profile))
    return 0


def convert_main(argv: Sequence[str]) -> int:
    args = build_convert_parser().parse_args(argv)
    try:
        recipe = convert(args.model, args.out, args.quant, revision=args.revision, threads=args.threads)
    except ConvertError as exc:
        _refuse(exc)
        return 2
    print(json.dumps(recipe, indent=2))
    return 0


def _refuse(exc: Exception, prefix: str = "", default: str = "INVALID") -> None:
    """`error: CODE: message` on stderr: the code of the evaluator's own errors (their `code`), else `default`."""
    print(f"error: {getattr(exc, 'code', default)}: {prefix}{exc}", file=sys.stderr)


def main(argv: Sequence[str] | None = None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    if argv[:1] == ["convert"]:
        return convert_main(argv[1:])
    if argv[:1] == ["profile"]:
        return profile_main(argv[1:])
    args = build_parser().parse_args(argv)
    try:
        questions = load_questions(args.questions)
        dev = load_questions(args.dev) if args.dev else None
        variants = parse_variants(args.variants)
        if args.shots and not dev:
            raise QuestionFileError("--shots needs --dev (a dev-split question file)")
        if args.protocol:
            protocol = get_protocol(args.protocol)
            sizing = protocol_prompts(protocol, questions, dev)  # refuses a category without worked exemplars
            new_tokens = args.max_new_tokens or protocol.max_new_tokens
        else:
            sizing = render_questions(questions, template=args.template, shots=args.shots, dev_questions=dev)
            new_tokens = (args.max_new_tokens or 32) if args.mode == "generate" else 1
    except (QuestionFileError, VariantError, ProtocolError) as exc:
        _refuse(exc)
        return 2
    try:
        kwargs = {"revision": args.revision, "dtype": args.dtype, "seed": args.seed, "batch_size": args.batch_size,
                  "device": args.device}
        if args.backend in ("vllm", "llamacpp"):  # size the engine's context to these prompts, not the model's maximum
            kwargs.update(sizing_prompts=sizing, max_new_tokens=new_tokens, use_chat_template=args.chat_template)
        if args.backend == "llamacpp":
            kwargs.update(threads=args.threads, tokenizer=args.tokenizer)
        backend = create_backend(args.backend, args.model, **kwargs)
    except (BackendError, OSError, ValueError) as exc:
        _refuse(exc, f"cannot load model {args.model!r} with the {args.backend} backend: ", "MODEL_LOAD_ERROR")
        return 3

    try:
        return _evaluate(args, backend, questions, dev, variants)
    finally:
        if hasattr(backend, "close"):  # vLLM's engine processes would keep the interpreter from exiting
            backend.close()


def _evaluate(args, backend, questions, dev, variants) -> int:
    out_path = Path(args.out)
    out_path.parent.mkdir(parents=True, exist_ok=True)
    with out_path.open("w", encoding="utf-8") as fh:
        def on_chunk(index: int, rows: list[dict]) -> None:
            for r in rows:
                fh.write(json.dumps(r, ensure_ascii=False) + "\n")
            fh.flush()

        def progress(done: int, total: int) -> None:
            if not args.quiet:
                print(f"scored {done}/{total}", file=sys.stderr)

        try:
            result = run_evaluation(
                backend, questions, template=args.template, shots=args.shots, dev_questions=dev,
                variants=variants, seed=args.seed, chunk_size=args.chunk_size, on_chunk=on_chunk,
                progress=progress, mode=args.mode, use_chat_template=args.chat_template,
                max_new_tokens=args.max_new_tokens, protocol=args.protocol,
            )
        except (BackendError, VariantError, ValueError) as exc:
            _refuse(exc, default="EVALUATION_ERROR")
            return 4

    summary = result.summary
    if args.protocol:  # mmlu-pro-cot-guess: unread answers guessed as the publisher's script does
        rows = apply_guesses(get_protocol(args.protocol), result.rows, questions,
                             {q.question_id: q.answer or () for q in questions})
        summary = summarize(rows, result.settings.get("variants")) | {"skipped_items": result.skipped_items}
    report = {"settings": result.settings, "fingerprint": result.fingerprint, "backend": backend.describe(),
              "summary": summary}
    if args.efficiency and args.mode == "logprobs" and not args.protocol:
        tmpl = get_template(args.template)
        sample = fixed_sample(questions, key=lambda q: q.question_id)
        report["efficiency"] = measure_efficiency(
            backend, [tmpl.render(q.question, q.options) for q in sample], use_chat_template=args.chat_template)
    text = json.dumps(report, indent=2, ensure_ascii=False, default=str)
    if args.summary:
        Path(args.summary).write_text(text + "\n", encoding="utf-8")
    else:
        print(text)
    return 0
