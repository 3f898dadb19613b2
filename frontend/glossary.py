"""The statistics and variant names the pages use, each with a one-line explanation and its section of the
methodology page (/about/#anchor). Templates show them with {% term "key" %} (templatetags/frontend.py): a link
to the section whose title is the explanation, so it shows on hover and focus and a tap opens the section."""
from dataclasses import dataclass


@dataclass(frozen=True)
class Term:
    label: str
    short: str
    anchor: str


TERMS = {
    "delta": Term("Δ", "test − validation accuracy, in points; well below zero suggests the public validation "
                       "questions were seen in training", "delta"),
    "delta0": Term("δ₀", "the Δ expected of an uncontaminated model: the two splits differ a little in difficulty",
                   "delta0"),
    "se": Term("SE", "standard error of Δ: how much Δ moves by sampling alone", "se"),
    "z": Term("z", "(Δ − δ₀) in standard errors; below −3 (with q < 0.05) flags possible contamination", "z"),
    "q": Term("q", "Benjamini–Hochberg q-value: the p-value corrected for testing every model on the board", "flag"),
    "holm": Term("Holm", "Holm's correction: per-topic tests corrected together, so testing many topics does not "
                         "name one by chance", "per-topic"),
    "ladder": Term("Ladder", "Ladder rule: a newer revision's sealed test score replaces the shown one only if its "
                             "paired gain is significant", "ladder"),
    "fixed": Term("fixed-A", "fixed-A to fixed-D: the correct option moved to that letter, the others shuffled",
                  "variants"),
    "shuffles": Term("R1–R4", "R1 to R4: four seeded full shuffles of the options", "variants"),
    "ts-guessing": Term("TS-Guessing", "memorization probe: the model writes a masked wrong option of a validation "
                                       "question; many exact hits hint that it has seen the questions", "probe"),
    "letter-mass": Term("letter mass", "the share of the next-token probability that fell on the option letters",
                        "letter-mass"),
    "ci": Term("95% interval", "Wilson score interval: the true accuracy lies in it with 95% confidence",
               "intervals"),
    "paired-change": Term("change vs 16-bit", "a GGUF file's accuracy minus its 16-bit model's on the same "
                                              "questions, with Newcombe's paired 95% interval", "paired-change"),
    "flips": Term("flips", "questions whose predicted letter changed between the 16-bit model and the file",
                  "flips"),
    "kl": Term("mean KL", "mean KL(16-bit ‖ file) of the letter probabilities, in nats: how far the file moved them",
               "kl"),
    "mrscore": Term("MRScore", "Mobile Relevance Score: how relevant a question is to everyday phone use, 1–10, "
                               "from a fixed judge model", "mrscore"),
}
