import pytest

from tests.support.fake_hub import files_from_folder


@pytest.fixture
def hub_model(fake_hub, tiny_model_dir):
    """The tiny demo model published on the fake hub as demo-org/tiny, with a license."""
    files = files_from_folder(tiny_model_dir)
    files["README.md"] = b"---\nlicense: apache-2.0\n---\n# tiny\n"
    return fake_hub.add_repo("demo-org/tiny", repo_type="model", files=files, license="apache-2.0")

