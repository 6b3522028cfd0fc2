"""The terminology of the interface: for each concept a reviewer meets, the
one word used in English, Chinese (simplified) and Tibetan, and the words
that must not be used for it.

A catalogue that names one concept with two words makes a reviewer wonder
whether two things are meant; a word that means something else misleads
(Tibetan ལན་ཐ་མ "final answer" for "answer key" turns the verdict "key
correct" into "the final answer is correct").  :func:`violations` finds,
in a catalogue, every entry that uses a forbidden word, or whose English
source names a concept while the translation lacks the table's word for it;
``tests/i18n/test_terms.py`` fails on any.

**Drafts.**  The Chinese and Tibetan words are drafts until a native speaker
has checked them; :attr:`Term.bo_checked` / :attr:`Term.zh_checked` record
which have been.  None of the Tibetan has been checked yet.

**Digits and option letters in the Tibetan interface** (:data:`DIGITS`,
:data:`OPTION_LABELS`): one rule, applied by the rendering code.

>>> term("answer_key").bo, term("answer_key").zh
('ལན་གྱི་ལྡེ་མིག', '标准答案')
>>> [(v.key, v.concept) for v in violations({"x": "ལན་ཐ་མ་ཡང་དག"}, "bo")]
[('x', 'answer_key')]
>>> [v.problem for v in violations({"btn.skip": "跳过"}, "zh-Hans", {"btn.skip": "Skip for now"})]
[]
>>> [v.problem for v in violations({"q": "答案 {key}"}, "zh-Hans", {"q": "key {key}"})]
['the English names answer_key; the translation lacks 标准答案']
"""
from __future__ import annotations

import re
from dataclasses import dataclass, field

__all__ = ["DIGITS", "OPTION_LABELS", "TERMS", "Term", "Violation", "term", "violations"]


@dataclass(frozen=True)
class Term:
    """One concept: its word in each language, the words not to use for it
    (regular expressions, per language), and when the English source names
    it (``en_pattern``, case-insensitive) the translation must match
    ``require`` (default: the word itself) — except in the ``exempt`` keys,
    where the English word means something else."""

    concept: str
    en: str
    zh: str
    bo: str
    forbidden: dict[str, tuple[str, ...]] = field(default_factory=dict)
    en_pattern: str | None = None
    require: dict[str, str] = field(default_factory=dict)
    exempt: frozenset[str] = frozenset()
    note: str = ""
    zh_checked: bool = False
    bo_checked: bool = False

    def word(self, lang: str) -> str:
        return {"en": self.en, "zh-Hans": self.zh, "bo": self.bo}[lang]

    def required(self, lang: str) -> str:
        return self.require.get(lang, re.escape(self.word(lang)))


# Where "key" is a key of the keyboard, not the answer key.
_KEYBOARD = frozenset({"item.shortcuts", "item.err_no_verdict"})

TERMS: tuple[Term, ...] = (
    Term("answer_key", "key", "标准答案", "ལན་གྱི་ལྡེ་མིག",
         forbidden={"bo": ("ལན་ཐ་མ", "ཡང་དག་ལན"), "en": (r"\bground truth\b", r"\bgold\b", r"\bfinal answer\b")},
         en_pattern=r"\bkeys?\b", exempt=_KEYBOARD,
         note="bo: ལན་ཐ་མ means 'final answer', so ལན་ཐ་མ་ཡང་དག read 'the final answer is correct'. "
              "ཡང་དག་ལན ('correct answer') fails the same way: the verdict 'key wrong' would read "
              "ཡང་དག་ལན་ནོར 'the correct answer is wrong', a contradiction, and the whole point of the "
              "tool is that the key may be wrong. ལན་གྱི་ལྡེ་མིག ('the key of the answers', an exam's "
              "answer key) names the answer the benchmark marks without claiming it is right, so "
              "ལན་གྱི་ལྡེ་མིག་ནོར་བ says exactly 'the answer key is wrong'. It is a calque of the English; "
              "a native speaker may prefer an established exam term. zh: 标准答案, as in the literature "
              "on benchmark errors ('标准答案有误'); bare 答案 is any answer (a model's, a corrected one)."),
    Term("key_wrong", "key wrong", "标准答案错误", "ལན་གྱི་ལྡེ་མིག་ནོར་བ",
         forbidden={"zh-Hans": ("答案有误",), "bo": ("ལྡེ་མིག་ནོར་འཁྲུལ",)},
         note="the verdict; bo ནོར་བ 'wrong' (an adjective), not the noun ནོར་འཁྲུལ 'error'."),
    Term("key_correct", "key correct", "标准答案正确", "ལན་གྱི་ལྡེ་མིག་ཡང་དག",
         forbidden={"zh-Hans": ("答案无误",)}),
    Term("lead", "lead (lead reviewer)", "组长", "འགོ་ཁྲིད",
         forbidden={"bo": ("འགོ་འཛིན",), "zh-Hans": ("负责人", "审阅组长")},
         en_pattern=r"\blead", require={"zh-Hans": "组长"},
         note="bo: འགོ་ཁྲིད 'leader' (ཞིབ་བཤེར་འགོ་ཁྲིད 'lead reviewer'); འགོ་འཛིན 'person in charge, "
              "chair' was used beside it for the same role."),
    Term("reviewer", "reviewer", "审核员", "ཞིབ་བཤེར་བ",
         forbidden={"zh-Hans": ("审核人", "审阅人", "审阅"), "bo": ("ཞིབ་བཤེར་མཁན",)},
         en_pattern=r"\breviewers?\b", require={"zh-Hans": "审核员|组长", "bo": "ཞིབ་བཤེར་བ|འགོ་ཁྲིད"},
         note="zh: 审核 (review, as on annotation platforms), never 审阅 ('read over'); a reviewer is "
              "审核员. A 'lead reviewer' (组长) is a reviewer too."),
    Term("review", "review", "审核", "ཞིབ་བཤེར",
         forbidden={"zh-Hans": ("审阅",)}, en_pattern=r"\breview(s|ed|ing)?\b",
         require={"zh-Hans": "审核|组长", "bo": "ཞིབ་བཤེར|འགོ་ཁྲིད"}),
    Term("judge", "judge (LLM judge)", "评判模型", "དཔྱད་པ་བ",
         forbidden={"bo": ("དཔྱད་གཞི",), "zh-Hans": ("评审", "裁判", r"评判(?!模型|团)")},
         en_pattern=r"\bjudges?\b",
         note="bo: དཔྱད་པ་བ 'the one who examines'; དཔྱད་གཞི means 'object of analysis' (what is "
              "judged, not who judges). zh: 评判模型 says it is a model; 评审 would clash with 审核."),
    Term("independent", "independent", "独立", "ཕན་ཚུན་འབྲེལ་མེད",
         forbidden={"bo": ("རང་མགོ་རང་འཛིན", "རང་བཙན", "རང་སྐྱོང", "རང་དབང")},
         en_pattern=r"\bindependent",
         note="bo: 'unrelated to each other' — what independent models and independent reviews "
              "are. རང་མགོ་རང་འཛིན 'self-governing', རང་བཙན 'independence (of a country)', རང་སྐྱོང "
              "'autonomy' and རང་དབང 'freedom' are political words."),
    Term("skip", "skip", "跳过", "རྗེས་སུ་བཞག",
         forbidden={"bo": ("མཆོང",), "zh-Hans": ("略过",)}, en_pattern=r"\bskip",
         note="bo: 'put aside for later', which is what a skip is (it is not a verdict); མཆོང means "
              "'jump'."),
    Term("settled", "settled", "已定论", "ཐག་ཆོད",
         forbidden={"zh-Hans": (r"已定(?!论)", "定案")}, en_pattern=r"\bsettle",
         require={"zh-Hans": "定论"}),
    Term("disputed", "disputed", "有争议", "རྩོད་གཞི",
         forbidden={"zh-Hans": ("分歧",)}, en_pattern=r"\bdisputed\b|\bdisputes\b(?! the key)",
         exempt=frozenset({"judges.models_h", "judges.models_caption", "judges.pairs_caption",
                           "judges.acc_patterns_h", "reading.bias.top_model", "reading.sets.counts",
                           "reading.sets.in_tiers", "column.n_disputed"}),
         require={"zh-Hans": "争议"},
         note="between reviewers. A judge 'disputing a key' (it answers otherwise) is not a dispute "
              "between reviewers; those entries are exempt."),
    Term("adjudication", "adjudication", "裁决", "མཐའ་མའི་ཐག་གཅོད",
         forbidden={"zh-Hans": ("仲裁",), "bo": ("ཐག་གཅོད་མཐའ་མ",)}, en_pattern=r"\badjudicat"),
    Term("verdict", "verdict", "判定", "ཐག་གཅོད",
         forbidden={"zh-Hans": ("判断", "裁定")}, en_pattern=r"\bverdicts?\b",
         require={"zh-Hans": "判定|裁决", "bo": "ཐག་གཅོད"},
         note="zh: 判定 everywhere (判断 and 裁定 were both used); a lead's deciding verdict is a 裁决."),
    Term("queue", "queue", "队列", "གྲལ་རིམ", en_pattern=r"\bqueue\b"),
    Term("tier", "tier", "等级", "རིམ་པ",
         forbidden={"zh-Hans": ("层级", "分层", "级别")}, en_pattern=r"\btiers?\b",
         require={"zh-Hans": "级"}, note="zh: 第 1 级 for 'Tier 1', 等级 for the concept."),
    Term("score", "key-error score", "错误概率", "ནོར་བའི་སྲིད་ཕྱོད",
         forbidden={"zh-Hans": ("错误分数",), "bo": ("ཐོབ་སྐར", "སྲིད་ཚད")},
         en_pattern=r"key-error score",
         note="the probability that a key is wrong; bo ཐོབ་སྐར is an exam mark, not a probability."),
    Term("subject", "subject", "科目", "སློབ་ཚན",
         forbidden={"zh-Hans": ("学科",)}, en_pattern=r"\bsubjects?\b"),
    Term("family", "family (model family)", "家族", "རིགས་རྒྱུད",
         forbidden={"zh-Hans": ("系列",), "bo": ("དཔེ་དབྱིབས་རིགས", "རིགས་ཆ", r"རིགས(?!་རྒྱུད)")},
         en_pattern=r"\bfamil(y|ies)\b",
         note="bo: རིགས་རྒྱུད 'lineage' (models of one maker or lineage); bare རིགས 'kind' was used "
              "beside དཔེ་དབྱིབས་རིགས."),
    Term("option", "option", "选项", "འདེམས་གཞི", en_pattern=r"\boptions?\b"),
    Term("model", "model", "模型", "དཔེ་དབྱིབས", en_pattern=r"\bmodels?\b"),
    Term("version", "version", "版本", "པར་གཞི", en_pattern=r"\bversions?\b"),
    Term("export", "export", "导出", "ཕྱིར་འདྲེན",
         forbidden={"bo": ("ཕྱིར་འདོན",)}, en_pattern=r"\bexport",
         note="bo: ཕྱིར་འདྲེན pairs with ནང་འདྲེན 'import'; ཕྱིར་འདོན was used beside it."),
    Term("benchmark", "benchmark", "题库", "དྲི་བའི་མ་དེབ",
         forbidden={"zh-Hans": ("基准",), "bo": ("ཚད་ལེན", "ཚད་གཞི་འདི", r"(?<!དྲི་བའི་)མ་དེབ")},
         en_pattern=r"\bbenchmarks?\b",
         note="zh: 题库 'question bank', plainer for reviewers than 基准."),
    Term("source", "source item (parallel source)", "原题", "མ་ཡིག",
         forbidden={"zh-Hans": ("平行来源",), "bo": ("མཉམ་འགྲོའི་ཁུངས", "མཉམ་འགྲིག་མ་ཡིག")},
         note="the item a translated item was made from (CMMLU for TLUE)."),
    Term("expert", "expert", "专家", "ཆེད་མཁས་པ",
         forbidden={"bo": (r"(?<!ཆེད་)མཁས་པ",)}, en_pattern=r"\bexperts?\b"),
    Term("defective", "defective", "有缺陷", "སྐྱོན་ཅན",
         forbidden={"bo": ("སྐྱོན་ཡོད",)}, en_pattern=r"\bdefective\b"),
    Term("ambiguous", "ambiguous", "有歧义", "དོན་གཉིས་ཅན", en_pattern=r"\bambiguous\b"),
    Term("interval", "interval (likely range)", "区间", "བར་ཁོངས",
         forbidden={"bo": ("ཁྱབ་ཁོངས", "ཁྱབ་ཚད")}, en_pattern=r"\binterval\b|\blikely range\b|\bCI\b",
         require={"zh-Hans": "区间|范围"}),
)

_BY_CONCEPT = {t.concept: t for t in TERMS}

#: Digits in the Tibetan interface: Latin (0–9) everywhere, never ༠–༩.  Item
#: ids, version numbers, keyboard keys (1–5), dates, statistics and every
#: table are Latin already and cannot be otherwise, so Tibetan digits in the
#: interface text would put two scripts of digits on each page.  The text of
#: an item (stem, options) is shown exactly as stored, whatever its digits.
DIGITS: dict[str, str] = {"en": "latin", "zh-Hans": "latin", "bo": "latin"}

#: Option letters: an option is always named by the label the item itself
#: shows — ཀ ཁ ག ང for an item whose options are labelled so, A–D for TLUE,
#: whose text writes "A." … "D." — in the key, the votes, the corrected answer
#: and the outcome (``audit.i18n.outcome(option_label=…)``), in every
#: interface language.  The stored letter A–D is never shown beside Tibetan
#: labels, and the interface text never adds its own letters (no "A–D" in a
#: Tibetan sentence about an item's options).
OPTION_LABELS = "the item's own labels"


def term(concept: str) -> Term:
    """The :class:`Term` of ``concept``."""
    return _BY_CONCEPT[concept]


@dataclass(frozen=True)
class Violation:
    key: str
    concept: str
    problem: str


_TIBETAN_DIGIT = re.compile("[\u0f20-\u0f29]")
# Placeholders ({key}) and code (`audit judge run --model …`) are not words of the language.
_PLACEHOLDER = re.compile(r"\{[^{}]*\}|`[^`]*`")


def violations(messages: dict[str, str], lang: str, english: dict[str, str] | None = None) -> list[Violation]:
    """Every entry of ``messages`` (a catalogue in ``lang``) that uses a
    forbidden word, or (given the ``english`` source) lacks the table's word
    for a concept its English names; in Tibetan also every Tibetan digit
    (:data:`DIGITS`).  Placeholders (``{key}``) and code spans are not
    words of the language and are ignored.

    >>> violations({"a": "第 {n} 级"}, "zh-Hans", {"a": "Tier {n}"})
    []
    >>> violations({"a": "ལན་གྱི་ལྡེ་མིག ༡"}, "bo")[0].problem
    'Tibetan digit (the interface writes 0–9)'
    """
    out = []
    for key, text in messages.items():
        plain = _PLACEHOLDER.sub(" ", text)
        for t in TERMS:
            for pattern in t.forbidden.get(lang, ()):
                if re.search(pattern, plain):
                    out.append(Violation(key, t.concept, f"uses {pattern!r}, not {t.word(lang)}"))
            if english is None or lang == "en" or not t.en_pattern or key in t.exempt or key not in english:
                continue
            if re.search(t.en_pattern, _PLACEHOLDER.sub(" ", english[key]), re.I) and \
                    not re.search(t.required(lang), plain):
                out.append(Violation(key, t.concept, f"the English names {t.concept}; the translation lacks "
                                                     f"{t.word(lang)}"))
        if DIGITS.get(lang) == "latin" and _TIBETAN_DIGIT.search(plain):
            out.append(Violation(key, "digits", "Tibetan digit (the interface writes 0–9)"))
    return out
