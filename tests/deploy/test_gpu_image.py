"""The GPU worker image builds llama.cpp (llama-cpp-python) from the pinned source distribution: with CUDA for the GPU
image, so a GGUF file's accuracy run uses the GPU; for the CPU in the CPU variant; portable in both (never for the
machine that builds). It installs the version the llamacpp environment (CI, the cost profile's tests) runs, and
llama.cpp's converter from the same source distribution where evaluator/gguf_convert.py looks. Offline: it reads the
Dockerfile, the compose files and the requirements (no Docker engine runs on CI machines)."""
import re
import shlex
import subprocess

import pytest

from tests.deploy.compose import REPO, dockerfile_args, requirement_names, variants

DOCKERFILE = REPO / "docker" / "gpu-worker.Dockerfile"
CPU_REQUIREMENTS = "docker/requirements-cpu-worker.txt"
CONVERTER = ("convert_hf_to_gguf.py", "conversion", "gguf-py", "LICENSE")  # what dev.sh's setup_llamacpp copies


def stages() -> dict[str, str]:
    """Stage name (the last one: "runtime") -> its lines."""
    text = DOCKERFILE.read_text()
    parts = re.split(r"^FROM ", text, flags=re.M)[1:]
    out = {}
    for part in parts:
        head = part.splitlines()[0].split()
        out[head[2] if len(head) == 3 and head[1] == "AS" else "runtime"] = "FROM " + part
    return out


def image_args(variant: str) -> dict[str, str]:
    """The worker image's build arguments as a variant's compose file builds it."""
    build = variants()[variant]["services"]["gpu-worker"]["build"]
    return {**dockerfile_args(DOCKERFILE), **build.get("args", {})}


def pin_of(path) -> str:
    (pin,) = re.findall(r"^llama-cpp-python==(\S+)", (REPO / path).read_text(), flags=re.M)
    return pin


def cmake_args(variant: str) -> list[str]:
    """The CMAKE_ARGS the build stage gives pip, with the variant's arguments expanded."""
    (value,) = re.findall(r'CMAKE_ARGS="([^"]*)"', stages()["llamacpp"].replace("\\\n", ""))
    return shlex.split(value.replace("$LLAMACPP_GPU_ARGS", image_args(variant)["LLAMACPP_GPU_ARGS"]))


def test_it_works():
    assert set(stages()) == {"llamacpp", "runtime"}
    assert stages()["llamacpp"].startswith("FROM ${LLAMACPP_BUILD_IMAGE} AS llamacpp\n")
    runtime = stages()["runtime"]
    assert "COPY --from=llamacpp /wheels /tmp/llamacpp" in runtime
    assert 'pip install /tmp/llamacpp/llama_cpp_python-*.whl -r "$REQUIREMENTS"' in runtime


@pytest.mark.parametrize("variant", ["gpu", "cpu"])
def test_it_installs_the_llama_cpp_python_the_llamacpp_environment_runs(variant):
    """The worker's requirements pin the llamacpp lock's version; the build stage builds the version it reads from
    them (the Dockerfile's own command, run here), and pip installs that wheel against the same pin."""
    requirements = image_args(variant)["REQUIREMENTS"]
    assert pin_of(requirements) == pin_of("requirements/llamacpp.lock")
    (command,) = re.findall(r'pin=\$\((sed .*? "\$REQUIREMENTS")\)', stages()["llamacpp"])
    built = subprocess.run(["sh", "-c", command], cwd=REPO, env={"REQUIREMENTS": requirements},
                           capture_output=True, text=True, check=True).stdout.strip()
    assert built == pin_of("requirements/llamacpp.lock")
    assert "llama-cpp-python" in requirement_names(REPO / requirements)


def test_the_gpu_image_builds_llama_cpp_with_cuda_for_named_gpus():
    args = cmake_args("gpu")
    assert "-DGGML_CUDA=ON" in args
    (archs,) = [a.split("=", 1)[1] for a in args if a.startswith("-DCMAKE_CUDA_ARCHITECTURES=")]
    assert archs.split(";") and all(re.fullmatch(r"\d+(-real|-virtual)?", a) for a in archs.split(";")), archs
    assert {"80", "86", "89", "90"} <= {a.split("-")[0] for a in archs.split(";")}  # A100, A10, L4, H100
    # nvcc from the devel image of the runtime's CUDA and Ubuntu: what it builds loads in the runtime image.
    base, build = image_args("gpu")["BASE_IMAGE"], image_args("gpu")["LLAMACPP_BUILD_IMAGE"]
    assert "-runtime-" in base and build == base.replace("-runtime-", "-devel-")


def test_the_cpu_variant_builds_llama_cpp_for_the_cpu_on_its_own_base():
    args = cmake_args("cpu")
    assert not [a for a in args if "CUDA" in a]
    assert image_args("cpu")["LLAMACPP_BUILD_IMAGE"] == image_args("cpu")["BASE_IMAGE"] == "ubuntu:24.04"


@pytest.mark.parametrize("variant", ["gpu", "cpu"])
def test_it_builds_portable_without_tests_examples_or_tools(variant):
    args = cmake_args(variant)
    assert "-DGGML_NATIVE=OFF" in args and not [a for a in args if "native" in a.lower() and a != "-DGGML_NATIVE=OFF"]
    for option in ("LLAMA_BUILD_TESTS", "LLAMA_BUILD_EXAMPLES", "LLAMA_BUILD_TOOLS", "LLAVA_BUILD"):
        assert f"-D{option}=OFF" in args, option
    assert "-march=native" not in DOCKERFILE.read_text()
    # dev.sh builds the llamacpp environment (CI) portable too.
    assert "-DGGML_NATIVE=OFF" in (REPO / "dev.sh").read_text()


def test_it_puts_the_converter_where_gguf_convert_looks():
    """evaluator/gguf_convert.py looks in <the environment>/llama.cpp (sys.prefix): the image's is /venv. The parts
    are those dev.sh copies, from the same source distribution as the library."""
    build, runtime = stages()["llamacpp"], stages()["runtime"]
    (parts,) = re.findall(r"for part in ([^;]+); do", build)
    assert tuple(parts.split()) == CONVERTER
    assert "cp -r convert_hf_to_gguf.py conversion gguf-py LICENSE" in (REPO / "dev.sh").read_text()
    assert "RUN python3 -m venv /venv\n" in runtime and "COPY --from=llamacpp /converter /venv/llama.cpp" in runtime
    assert 'Path(sys.prefix) / "llama.cpp"' in (REPO / "evaluator" / "gguf_convert.py").read_text()


@pytest.mark.parametrize("variant", ["gpu", "cpu"])
def test_it_has_what_converting_and_quantizing_need(variant):
    """The worker converts 16-bit checkpoints (the converter imports torch, gguf, sentencepiece, and transformers
    needs protobuf for a SentencePiece tokenizer) and quantizes with llama.cpp."""
    names = requirement_names(REPO / image_args(variant)["REQUIREMENTS"])
    assert {"llama-cpp-python", "gguf", "sentencepiece", "protobuf", "torch", "transformers"} <= names
