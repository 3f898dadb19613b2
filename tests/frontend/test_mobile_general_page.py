"""The mobile-vs-general page: the scatter's data and the two tables (measured; the paper's, labelled), the picker,
the links from the board and a model page, and no sealed content."""
import pytest
from django.urls import reverse

from tests.boards.conftest import general_board  # noqa: F401  (fixture)
from tests.frontend.conftest import assert_charts, elements, page_data, text
from tests.support.sealed import assert_no_sealed_content, sealed_strings

pytestmark = pytest.mark.django_db


@pytest.fixture
def boards(general_board, make_run):  # noqa: F811
    for hub_id, mobile, general, test in (("org/a", 400, 30, 390), ("org/b", 350, 35, 345), ("org/c", 300, 20, None)):
        make_run(hub_id, mobile)
        make_run(hub_id, general, benchmark="mmlu-pro")
        if test:
            make_run(hub_id, test, split="test")
    return general_board


def test_it_draws_measured_models_with_intervals_and_the_papers_rows_apart(client, boards):
    response = client.get(reverse("mobile-vs-general"))
    assert response.status_code == 200
    assert_charts(response, "mobile-general")
    data = page_data(response)
    measured = {p[0]: p for p in data["measured"]}
    assert set(measured) == {"org/a", "org/b", "org/c"}
    hub, general, g_low, g_high, mobile, m_low, m_high, mobile_rank, general_rank, change = measured["org/a"]
    assert (general, mobile) == (71.43, 83.33) and g_low < general < g_high and m_low < mobile < m_high
    assert (mobile_rank, general_rank, change) == (1, 2, 1)
    assert len(data["paper"]) == 22 and data["general"] == "MMLU-Pro" and data["mobile"] == "Mobile-MMLU"
    page = text(response)
    assert page.count("<td>paper, Table 2</td>") == 22  # every row of the paper's table labelled
    dom = elements(response)
    measured_rows = [row for row in dom.find("tr", data_hub_id=True)]
    assert len(measured_rows) == 3 + 22
    assert "Spearman's ρ = 0.50" in page and "n = 3" in page  # places 1,2,3 against 2,1,3
    assert "/api/v1/mobile-vs-general/?mobile=mobile-mmlu&amp;general=mmlu-pro" in response.content.decode()


def test_the_sealed_split_shows_published_figures_and_no_sealed_content(client, boards):
    secrets = sealed_strings()
    response = client.get(reverse("mobile-vs-general"), {"split": "test"})
    data = page_data(response)
    assert {p[0] for p in data["measured"]} == {"org/a", "org/b"}
    assert_no_sealed_content(text(response), secrets)
    assert_no_sealed_content(text(client.get(reverse("mobile-vs-general"))), secrets)


def test_the_picker_offers_each_hosted_general_benchmark_and_a_model_link_highlights_it(client, boards, make_run):
    page = text(client.get(reverse("mobile-vs-general")))
    assert '<select name="general">' not in page  # one general benchmark hosted: nothing to pick
    boards("mmlu-cf")
    make_run("org/a", 10, benchmark="mmlu-cf")
    response = client.get(reverse("mobile-vs-general"), {"general": "mmlu-cf", "model": "ORG/A"})
    page = text(response)
    assert '<option value="mmlu-cf" selected>MMLU-CF</option>' in page and '<option value="mmlu-pro">' in page
    data = page_data(response)
    assert [p[0] for p in data["measured"]] == ["org/a"] and data["paper"] == [] and data["highlight"] == "org/a"
    assert 'class="highlighted"' in page
    assert client.get(reverse("mobile-vs-general"), {"general": "mmlu"}).status_code == 404


def test_the_board_and_a_model_page_link_to_it(client, boards):
    for url in (reverse("leaderboard"), reverse("model-detail", args=["org/a"])):
        links = [a["href"] for a in elements(client.get(url)).find("a", id="mobile-general-link")]
        assert links and links[0].startswith(reverse("mobile-vs-general")), url
    assert "?model=org/a" in client.get(reverse("model-detail", args=["org/a"])).content.decode()
