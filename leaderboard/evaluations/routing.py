"""Which GPU queue a run goes to: its model's size class (leaderboard/core/routing.py holds the classes)."""
from django.conf import settings

from leaderboard.core.routing import gpu_queue_for_params
from leaderboard.submissions.models import ModelEntry

from .models import EvaluationRun


def gpu_queue_for_run(run_id: int) -> str:
    """The queue for a run's model, from the parameter count the hub check stored (ModelEntry.params)."""
    classes = settings.GPU_QUEUE_CLASSES
    if len(classes) == 1:
        return classes[0].queue
    run = EvaluationRun.objects.filter(pk=run_id).values("model_ref", "submission__model__params").first()
    if run is None:
        return classes[-1].queue
    params = run["submission__model__params"]
    if params is None:
        params = ModelEntry.objects.filter(hub_id__iexact=run["model_ref"]).values_list("params", flat=True).first()
    return gpu_queue_for_params(params, classes)
