"""The oracle: MMLU-Pro's own evaluation functions, copied as they are, for tests/evaluator/test_mmlu_pro_protocol.py.

Source: https://github.com/TIGER-AI-Lab/MMLU-Pro/blob/26d41d02c9f6e1794e74a2740ed378cb0562faea/evaluate_from_local.py
(the file's latest change; repository HEAD f418b116db00b065c2aea046518d8fcf74d39872 of 2026-03-18), and
cot_prompt_lib/initial_prompt.txt of the same tree (last changed in 2ed4dfc591421d3c33619f074ce09f2ecc72b628).
Only what is needed is copied, each function verbatim (the model, dataset and logging code are left out);
INITIAL_PROMPT is the file's bytes, which a test writes to cot_prompt_lib/initial_prompt.txt for
generate_cot_prompt to open. The loop of eval_cot that lowers k and the order in which main() calls save_res are
reproduced in `official_k` and `official_figures` below the copies, with the lines they follow quoted.
"""
# ruff: noqa
import json
import random
import re

INITIAL_PROMPT = ('The following are multiple choice questions (with answers) about {$}. Think step by step and then '
                  'finish your answer with "the answer is (X)" where X is the correct letter choice.\n\n\n')

# --- verbatim -------------------------------------------------------------------------------------------------
choices = ["A", "B", "C", "D", "E", "F", "G", "H", "I", "J", "K", "L", "M", "N", "O", "P"]
max_model_length = 4096
max_new_tokens = 2048


def preprocess(test_df):
    res_df = []
    for each in test_df:
        options = []
        for opt in each["options"]:
            if opt == "N/A":
                continue
            options.append(opt)
        each["options"] = options
        res_df.append(each)
    return res_df


def select_by_category(df, subject):
    res = []
    for each in df:
        if each["category"] == subject:
            res.append(each)
    return res


def format_cot_example(example, including_answer=True):
    prompt = "Question:\n"
    question = example["question"]
    options = example["options"]
    prompt += question + "\n"
    prompt += "Options:\n"
    for i, opt in enumerate(options):
        prompt += "{}. {}\n".format(choices[i], opt)
    if including_answer:
        cot_content = example["cot_content"].replace("A: Let's think step by step.",
                                                     "Answer: Let's think step by step.")
        prompt += cot_content + "\n\n"
    else:
        prompt += "Answer: Let's think step by step."
    return prompt


def generate_cot_prompt(val_df, curr, k):
    prompt = ""
    with open(f"cot_prompt_lib/initial_prompt.txt", "r") as fi:
        for line in fi.readlines():
            prompt += line
    subject = curr["category"]
    val_df = select_by_category(val_df, subject)
    val_df = val_df[: k]
    prompt = prompt.replace("{$}", subject) + "\n"
    for example in val_df:
        prompt += format_cot_example(example, including_answer=True)
    prompt += format_cot_example(curr, including_answer=False)
    return prompt


def extract_answer(text):
    pattern = r"answer is \(?([A-J])\)?"
    match = re.search(pattern, text)
    if match:
        return match.group(1)
    else:
        print("1st answer extract failed\n" + text)
        return extract_again(text)


def extract_again(text):
    match = re.search(r'.*[aA]nswer:\s*([A-J])', text)
    if match:
        return match.group(1)
    else:
        return extract_final(text)


def extract_final(text):
    pattern = r"\b[A-J]\b(?!.*\b[A-J]\b)"
    match = re.search(pattern, text, re.DOTALL)
    if match:
        return match.group(0)
    else:
        return None


def save_res(res, output_path):
    accu, corr, wrong = 0.0, 0.0, 0.0
    with open(output_path, "w") as fo:
        fo.write(json.dumps(res))
    for each in res:
        if not each["pred"]:
            x = random.randint(0, len(each["options"]) - 1)
            if x == each["answer_index"]:
                corr += 1
                # print("random hit.")
            else:
                wrong += 1
        elif each["pred"] == each["answer"]:
            corr += 1
        else:
            wrong += 1
    if corr + wrong == 0:
        return 0.0, 0.0, 0.0
    accu = corr / (corr + wrong)
    return accu, corr, wrong


# --- the script's control flow around them -------------------------------------------------------------------

def official_k(val_df, curr, k, count_tokens):
    """eval_cot's loop: `while not prompt_length_ok: prompt = generate_cot_prompt(val_df, curr, k); ...
    if length < max_model_length - max_new_tokens: prompt_length_ok = True; k -= 1` -> the prompt it sends."""
    prompt_length_ok = False
    prompt = None
    while not prompt_length_ok:
        prompt = generate_cot_prompt(val_df, curr, k)
        length = count_tokens(prompt)
        if length < max_model_length - max_new_tokens:
            prompt_length_ok = True
        k -= 1
    return prompt


def official_figures(res_by_subject, output_path):
    """main(): `random.seed(12345)` at import; `for subject in sorted(selected_subjects)`, eval_cot calls
    save_res(res, output_path) twice and returns the second call's (accu, corr, wrong)."""
    random.seed(12345)
    out = {}
    for subject in sorted(res_by_subject):
        res = res_by_subject[subject]
        save_res(res, output_path)
        out[subject] = save_res(res, output_path)
    return out
