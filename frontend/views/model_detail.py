"""A model's page: the headline (rank, accuracy, sealed test, Δ, order spread, last evaluated), radar, subcategory
bars and the variant heatmap of one chosen run (open split), its sortable topic table against the board median,
one run history, Δ, on-device variants (open split only), efficiency, reproducibility."""
from django.http import Http404
from django.shortcuts import render
from django.views.decorators.gzip import gzip_page

from leaderboard.boards import selectors as boards
from leaderboard.contamination import selectors as contamination_selectors
from leaderboard.evaluations import display, gguf_make
from leaderboard.results import selectors as results_selectors
from leaderboard.submissions import selectors as submission_selectors

from .. import model_headline
from ..payloads import devices as device_payload
from ..payloads import model as payload
from ..payloads.ondevice import demo_label
from . import common


@gzip_page
def model_detail(request, hub_id):
    model = submission_selectors.public_model_or_404(hub_id=hub_id)
    results = results_selectors.model_results(hub_id=hub_id)
    if model is None and not results:
        raise Http404("No such model.")
    run_id = common.run_from(request)
    chosen = payload.choose_result(results, run_id)
    if run_id is not None and chosen is None:
        raise Http404("No such run of this model.")
    history = {h["run_id"]: h for h in results_selectors.model_history(hub_id=hub_id)}
    runs = payload.run_rows(results, history, chosen)
    data, topics, robustness = None, [], None
    if chosen is not None and not display.is_sealed(chosen.split):
        breakdown = payload.breakdown(chosen, results_selectors.result_cells(result=chosen))
        topics = payload.topics_vs_board(breakdown.pop("topics"), model_headline.board_medians(chosen))
        data = {"hub_id": hub_id, "run_id": chosen.run_id, "benchmark": chosen.benchmark.name,
                "split": chosen.split, "shots": chosen.shots, "variant": chosen.primary_variant, **breakdown}
        robustness = payload.robustness(data)
        data["summaries"] = payload.summaries(data, robustness)
    contamination = contamination_selectors.model_contamination(hub_id=hub_id)
    canonical = results[0].hub_id if results else hub_id  # the board's spelling
    gguf_file = gguf_make.file_facts(chosen.run) if chosen else None
    return render(request, "frontend/model_detail.html", {
        "hub_id": hub_id, "model": model, "runs": runs, "chosen": chosen,
        "headline": model_headline.headline(hub_id=canonical, results=results, cells=history,
                                            contamination=contamination),
        "chosen_sealed": chosen is not None and display.is_sealed(chosen.split), "data": data, "topics": topics,
        "robustness": robustness, "deltas": contamination["latest"], "delta_history": contamination["history"],
        "efficiency": payload.efficiency_rows(chosen.run.efficiency if chosen else {}),
        "efficiency_label": (chosen.run.efficiency or {}).get("label", "") if chosen else "",
        "cost_profile": payload.cost_profile_card((chosen.run.efficiency or {}).get("ondevice")) if chosen else None,
        "on_device": boards.on_device(hub_id=canonical),  # each file marked with its flag
        "demo_real": demo_label(chosen.hub_id, chosen.revision) if chosen else None,
        "gguf_file": gguf_file, "devices": device_payload.file_section(model=model, facts=gguf_file),
        "sealed_note": display.SEALED_BREAKDOWN_NOTE, **payload.protocol_card(chosen),
    })
