"""Where llama.cpp runs a GGUF file (evaluator/backends/llamacpp_backend.placement). On a GPU worker (RUN_DEVICE=cuda,
the GPU image's llama.cpp built with CUDA) every layer goes to the GPU, so a file's accuracy run uses it. On the CPU
(CI, the CPU image, the cost profile) nothing does, not even a large batch's matrix products, which a CUDA build of
llama.cpp would otherwise send to any visible GPU. The run card records which."""
import pytest

from evaluator.backends import BackendError, create_backend
from evaluator.backends.llamacpp_backend import placement


def test_a_cuda_run_puts_every_layer_on_the_gpu():
    assert placement("cuda") == {"n_gpu_layers": -1}
    assert placement("cuda:1") == {"n_gpu_layers": -1}


def test_a_cpu_run_offloads_nothing():
    assert placement("cpu") == {"n_gpu_layers": 0, "offload_kqv": False, "op_offload": False}


@pytest.mark.llamacpp
@pytest.mark.slow
def test_the_run_card_says_where_the_file_ran_and_a_cpu_build_refuses_cuda(gguf_files):
    import llama_cpp

    path = str(gguf_files["llama", "q8_0"])
    backend = create_backend("llamacpp", path, threads=2, n_ctx=512, device="cpu")
    try:
        card = backend.describe()
        assert (card["device"], card["offload"]) == ("cpu", placement("cpu"))
    finally:
        backend.close()
    if llama_cpp.llama_supports_gpu_offload():  # pragma: no cover - a CUDA build (the GPU image)
        pytest.skip("this llama.cpp was built with GPU support: the refusal below is the CPU build's")
    with pytest.raises(BackendError, match="no GPU support"):
        create_backend("llamacpp", path, threads=2, n_ctx=512, device="cuda")
