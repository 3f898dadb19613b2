"""Parameter counts of the models in the Mobile-MMLU paper's Table 2, for the size-vs-accuracy
scatter (the paper's Figs. 11-12). Billions, as stated on each model's Hugging Face card, rounded;
they are labelled approximate on the page. The accuracies themselves come from the ReportedResult
rows (leaderboard/results/reference.py), never from here."""

PAPER_PARAMS_B = {
    "nvidia/Nemotron-Mini-4B-Instruct": 4.2,
    "meta-llama/Llama-3.2-1B-Instruct": 1.24,
    "google/gemma-2-2b-it": 2.61,
    "tiiuae/Falcon3-3B-Instruct": 3.23,
    "ibm-granite/granite-3.1-3b-a800m-instruct": 3.3,
    "meta-llama/Llama-3.2-3B-Instruct": 3.21,
    "ibm-granite/granite-3.1-2b-instruct": 2.53,
    "Qwen/Qwen2.5-1.5B-Instruct": 1.54,
    "LGAI-EXAONE/EXAONE-3.5-2.4B-Instruct": 2.41,
    "microsoft/Phi-3.5-mini-instruct": 3.82,
    "Qwen/Qwen2.5-3B-Instruct": 3.09,
    "allenai/OLMo-2-1124-7B-Instruct": 7.3,
    "tiiuae/Falcon3-7B-Instruct": 7.46,
    "tiiuae/Falcon3-10B-Instruct": 10.3,
    "01-ai/Yi-1.5-6B-Chat": 6.06,
    "meta-llama/Llama-3.1-8B-Instruct": 8.03,
    "ibm-granite/granite-3.1-8b-instruct": 8.17,
    "internlm/internlm2_5-7b-chat": 7.74,
    "mistralai/Ministral-8B-Instruct-2410": 8.02,
    "01-ai/Yi-1.5-9B-Chat": 8.83,
    "Qwen/Qwen2.5-7B-Instruct": 7.62,
    "google/gemma-2-9b-it": 9.24,
}
