"""Published benchmark files, rebuilt at test time as their authors publish them.

Each ``write_*`` function writes a short excerpt of a real published file (or
folder, or archive) into a temporary folder and returns its path.  Field
names, nesting, order, indentation, encodings and quirks follow the upstream
file named in the function's docstring; the text is copied from it where the
stored copy could be read (a few records each, under the upstream licence).
Where the upstream file could not be read (binary archives), the docstring
says what was reconstructed and from what.

The tests read these files back with Python's own ``json``, ``csv``,
``zipfile`` and ``tarfile`` (:func:`read_jsonl` and friends below), never
with the importer's readers, and compare what the importer stored with that.
"""
from __future__ import annotations

import csv
import gzip
import io
import json
import tarfile
import unicodedata
import zipfile
from pathlib import Path

import duckdb

# --------------------------------------------------------------------------
# reading what was stored (read-only, plain DuckDB: no importer code)


def nfc(s: str) -> str:
    """The text as the importer is documented to store it: NFC, ends trimmed."""
    return unicodedata.normalize("NFC", s).strip()


def stored_items(db: Path, benchmark: str) -> dict[str, dict]:
    """Every stored item of *benchmark*, by id: stem, options (texts in label
    order), labels, key, subject, language, script, flags, source record, and
    the passage when the schema has a ``context`` column (None otherwise)."""
    con = duckdb.connect(str(db), read_only=True)
    try:
        cols = {r[0] for r in con.execute(
            "SELECT column_name FROM information_schema.columns WHERE table_name = 'questions'").fetchall()}
        context = "context" if "context" in cols else "NULL"
        rows = con.execute(
            f"SELECT question_id, stem, [o.text FOR o IN options], [o.label FOR o IN options], answer_key, "
            f"subject, language, script, flags, source_record, {context} "
            "FROM questions WHERE benchmark = ? ORDER BY seq", [benchmark]).fetchall()
    finally:
        con.close()
    out = {}
    for qid, stem, texts, labels, key, subject, language, script, flags, source, ctx in rows:
        out[qid] = dict(stem=stem, options=list(texts), labels=list(labels), key=key, subject=subject,
                        language=language, script=script, flags=list(flags or []),
                        source=json.loads(source) if isinstance(source, str) else source,
                        context=ctx, has_context_column=context == "context")
    return out


def option_scripts(db: Path, benchmark: str) -> dict[str, list[str | None]]:
    """The script stored for each option text, per item.  A script per text
    may be stored as ``options[].script`` or as a column ``option_scripts``;
    neither exists yet, which is itself the finding (an AssertionError)."""
    con = duckdb.connect(str(db), read_only=True)
    try:
        cols = dict(con.execute("SELECT column_name, data_type FROM information_schema.columns "
                                "WHERE table_name = 'questions'").fetchall())
        if "script" in cols.get("options", "").lower().split("(", 1)[-1]:
            sql = "SELECT question_id, [o.script FOR o IN options] FROM questions WHERE benchmark = ?"
        elif "option_scripts" in cols:
            sql = "SELECT question_id, option_scripts FROM questions WHERE benchmark = ?"
        else:
            raise AssertionError("no script is stored per option text (neither options[].script nor "
                                 "an option_scripts column): an item has one script for stem and options")
        return {q: list(s) for q, s in con.execute(sql, [benchmark]).fetchall()}
    finally:
        con.close()


def query(db: Path, sql: str, params=None) -> list[tuple]:
    con = duckdb.connect(str(db), read_only=True)
    try:
        return con.execute(sql, params or []).fetchall()
    finally:
        con.close()


ANY = object()   # assert_item: this part is checked by another test


def assert_item(got: dict, *, stem: str, options: list[str], key=ANY, context: str | None = None,
                where: str = "") -> None:
    """The stored item equals the source: every option text in order, the
    key label (unless ``key=ANY``), the stem, and the passage (as a
    ``context`` column, or joined before the stem by a blank line when the
    schema has none)."""
    assert got["options"] == [nfc(o) for o in options], f"{where}: options {got['options']}"
    if key is not ANY:
        assert got["key"] == key, f"{where}: key {got['key']!r}, the source means {key!r}"
    if context is None or not nfc(context):
        assert got["stem"] == nfc(stem), f"{where}: stem"
        assert not got["context"], f"{where}: a passage stored where the source has none"
    elif got["has_context_column"]:
        assert got["context"] == nfc(context), f"{where}: passage"
        assert got["stem"] == nfc(stem), f"{where}: stem"
    else:
        assert got["stem"] == nfc(context) + "\n\n" + nfc(stem), (
            f"{where}: the passage is not stored with the item (stem {got['stem'][:60]!r}…)")


def letter(i: int) -> str:
    return "ABCDEFGHIJ"[i]


def read_jsonl(path: Path) -> list[dict]:
    """One JSON object per line; lines split on "\\n" only (JSON text may hold
    U+0085, U+2028 and U+2029 raw, which are not line ends in JSONL)."""
    return [json.loads(line) for line in path.read_text(encoding="utf-8").split("\n") if line.strip()]


def read_csv_rows(path: Path | io.TextIOBase, header: bool = True) -> list:
    fh = open(path, encoding="utf-8-sig", newline="") if isinstance(path, Path) else path
    with fh:
        return list(csv.DictReader(fh)) if header else list(csv.reader(fh))


# --------------------------------------------------------------------------
# AGIEval: passage in its own field, `answer` null beside `label`

def write_agieval_logiqa(folder: Path, lang: str = "zh") -> Path:
    """ruixiangcui/AGIEval ``data/v1/logiqa-zh.jsonl`` and ``logiqa-en.jsonl``
    (commit 666a489): one JSON object per line, ``passage``, ``question``,
    ``options`` (each text starting with its own marker, written three ways:
    ``(A)…``, ``A …``, ``A: …``), ``label`` (the key), ``answer`` null,
    ``other`` null.  Records 0, 2, 10, 17 and 18 of the zh file (17 and 18
    share their passage) and records 0 and 1 of the en file."""
    zh = [
        {
            "passage": "某乡镇进行新区规划，决定以市民公园为中心，在东南西北分别建设一个特色社区。这四个社区分别定为，文化区、休闲区、商业区和行政服务区。已知行政服务区在文化区的西南方向，文化区在休闲区的东南方向。",
            "question": "根据以上陈述，可以得出以下哪项？",
            "options": [
                "(A)市民公园在行政服务区的北面",
                "(B)休闲区在文化区的西南",
                "(C)文化区在商业区的东北",
                "(D)商业区在休闲区的东南",
            ],
            "label": "A",
            "answer": None,
            "other": None,
        },
        {
            "passage": "某中药制剂中，人参或者党参必须至少有一种，同时还要满足以下条件:1）如果有党参，就必须有白术.2）白术、人参至多只能有一种.3）若有人参，就必须有首乌.4）有首乌，就必须有白术.",
            "question": "根据以上陈述，关于该中药制剂可以得出以下哪项?",
            "options": ["A 没有党参", "B 没有首乌", "C 有白术", "D 没有白术"],
            "label": "B",
            "answer": None,
            "other": None,
        },
        {
            "passage": "一份报告显示，截止三月份的一年内，中国内地买家成为购买美国房产的第二大外国买家群体，交易额达 90 亿美元，仅次于加拿大。这比上一年 73 亿美元的交易额高出 23%，比前年 48 亿美元的交易额高出 88%。有人据此认为，中国有越来越多的富人正在把财产转移到境外。",
            "question": "以下哪项如果为真，最能反驳上述论证",
            "options": [
                "A: 许多中国人购房是给子女将来赴美留学准备的",
                "B: 尽管成交额上升了 23%，但是今年中国买家的成交量未见增长",
                "(C)中国富人中存在群体炒房的团体，他们曾经在北京上海等地炒房",
                "(D)近年来美国房地产市场风险小，具有一定的保值增值功能",
            ],
            "label": "B",
            "answer": None,
            "other": None,
        },
        {
            "passage": "沿江高铁某段由西向东设置了五个站点，已知：扶夷站在灏韵站之东、胡瑶站之西，并与胡瑶站相邻；韮上站与银岭站相邻。",
            "question": "根据以上信息，关于五个站点由西向东的排列顺序，以下哪项是可能的？",
            "options": [
                "(A)银岭站、灏韵站、韮上站、扶夷站、胡瑶站；",
                "(B)扶夷站、胡瑶站、韮上站、银岭站、灏韵站；",
                "(C)灏韵站、银岭站、韮上站、扶夷站、胡瑶站；",
                "(D)灏韵站、胡瑶站、扶夷站、银岭站、韮上站；",
            ],
            "label": "C",
            "answer": None,
            "other": None,
        },
        {
            "passage": "沿江高铁某段由西向东设置了五个站点，已知：扶夷站在灏韵站之东、胡瑶站之西，并与胡瑶站相邻；韮上站与银岭站相邻。",
            "question": "如果韮上站与灏韵站相邻并且在灏韵站之东，则可以得出：",
            "options": ["(A)胡瑶站在最东面；", "(B)扶夷站在最西面；", "(C)银岭站在最东面；", "(D)韮上站在最西面；"],
            "label": "A",
            "answer": None,
            "other": None,
        },
    ]
    en = [
        {
            "passage": "In the planning of a new district in a township, it was decided to build a special community in the southeast, northwest, centered on the citizen park.These four communities are designated as cultural area, leisure area, commercial area and administrative service area.It is known that the administrative service area is southwest of the cultural area, and the cultural area is southeast of the leisure area.",
            "question": "Based on the above statement, which of the following can be derived?",
            "options": [
                "(A)Civic Park is north of the administrative service area",
                "(B)The leisure area is southwest of the cultural area",
                "(C)The cultural district is in the northeast of the business district",
                "(D)The business district is southeast of the leisure area",
            ],
            "label": "A",
            "answer": None,
            "other": None,
        },
        {
            "passage": "The company sent three young staff members to the South for business trip.The three of them happened to be sitting in a row.At least one of the two people sitting on the right side of 24 years old was 20 years old.20 years old.At least one of the two people sitting on the left of the accountant is a salesperson, and one of the two people sitting on the right of the salesperson is also a salesperson.",
            "question": "So what are the three young people on business?",
            "options": [
                "(A)20-year-old accountant, 20-year-old salesperson, 24-year-old salesperson",
                "(B)20-year-old accountant, 24-year-old salesperson, 24-year-old salesperson",
                "(C)24-year-old accountant, 20-year-old salesperson, 20-year-old salesperson",
                "(D)20-year-old accountant, 20-year-old accountant, 24-year-old salesperson",
            ],
            "label": "A",
            "answer": None,
            "other": None,
        },
    ]
    recs = zh if lang == "zh" else en
    path = folder / f"logiqa-{lang}.jsonl"
    # as published: json.dumps defaults (", " and ": " separators), raw UTF-8, "\n" after every line
    path.write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in recs), encoding="utf-8")
    return path


# --------------------------------------------------------------------------
# CLIcK: Korean; `paragraph`; the key given as the option's text ("112")

_KIIP_LAW = """[
    {
        "id":"KIIP_law_8",
        "paragraph":"",
        "question":"다음은 한국사회의 법에 대한 문제이다.\\n한국에서는 한 사건에 대해 몇 번까지 재판을 받을 수 있도록 하고 있는가?",
        "choices":[
            "1번",
            "2번",
            "3번",
            "4번"
        ],
        "answer":"3번"
    },

    {
        "id":"KIIP_law_11",
        "paragraph":"",
        "question":"다음은 한국사회의 법에 대한 문제이다.\\n경찰의 도움을 받기 위해 어떤 전화번호로 신고를 할 수 있는가?",
        "choices":[
            "119",
            "112",
            "114",
            "120"
        ],
        "answer":"112"
    },

    {
        "id":"KIIP_law_23",
        "paragraph":"",
        "question":"다음은 한국사회의 법에 대한 문제이다.\\n임대차 계약의 보통 기간은 얼마인가?",
        "choices":[
            "1년",
            "2년",
            "3년",
            "4년"
        ],
        "answer":"2년"
    }
]"""

_TOPIK = [
    {
        "id": "TK_2016_5",
        "paragraph": "",
        "question": "다음은 무엇에 대한 글인지 고르십시오.\n“비타민이 가득! 하루 필요한 야채가~ 이 한병에!”",
        "choices": ["주스", "콜라", "우유", "커피"],
        "answer": "주스",
    },
    {
        "id": "TK_2016_10",
        "paragraph": "만화방이 단순히 만화를 보는 공간에서 벗어나 볼거리,먹을거리를 함께즐길 수 있는 ‘만화카페’로 다시 태어나고 있다.이 만화카페는 ‘만화를 보는공간’이라는 점에서 만화방과 비슷하다.그러나 밝은 조명과 세련된 분위기에서 고급 커피까지 마실 수 있다는 점이 다르다.만화방이 주로 남자들에게 인기가 많았다면 만화카페는 10,20대 여성들에게 인기가 많다.",
        "question": "다음 글 또는 그래프의 내용과 같은 것을 고르십시오.",
        "choices": [
            "만화카페는 만화방과 실내 분위기가 비슷하다.",
            "만화카페는 주로 남성들에게 인기를 끌고 있다.",
            "만화카페는 커피를 마시기 위한 곳으로 새롭게 태어났다.",
            "만화카페는 볼거리와 먹을거리를 모두 즐길 수 있는 곳이다.",
        ],
        "answer": "만화카페는 볼거리와 먹을거리를 모두 즐길 수 있는 곳이다.",
    },
    {
        "id": "TK_2016_18",
        "paragraph": "요즘 아빠들은 아이들에게 친구 같은 존재가 되고 싶어한다. ( )아이가 어릴 때는 친구 같은 아빠가 필요하다. 서로 사랑하는 마음을 표현하는 과정을 통해 부모와 자식 간의 신뢰가 깊어질 수 있기 때문이다. 그런데 아이의 인성이 완성되는 청소년기에는 ‘권위 있는 아빠’의 역할도 중요하다.아빠의 권위 있는 말과 행동은 아이의 삶에 판단 기준이 되어 아이가 바른 길로 가는 데 도움을 줄 수 있기 때문이다.",
        "question": "( )에 들어갈 알맞은 것을 고르십시오.",
        "choices": ["반면", "물론", "차라리", "그러면"],
        "answer": "물론",
    },
    {
        "id": "TK_2016_19",
        "paragraph": "요즘 아빠들은 아이들에게 친구 같은 존재가 되고 싶어한다. ( )아이가 어릴 때는 친구 같은 아빠가 필요하다. 서로 사랑하는 마음을 표현하는 과정을 통해 부모와 자식 간의 신뢰가 깊어질 수 있기 때문이다. 그런데 아이의 인성이 완성되는 청소년기에는 ‘권위 있는 아빠’의 역할도 중요하다.아빠의 권위 있는 말과 행동은 아이의 삶에 판단 기준이 되어 아이가 바른 길로 가는 데 도움을 줄 수 있기 때문이다.",
        "question": "위 글의 중심 생각을 고르십시오.",
        "choices": [
            "아이들은 자기 스스로 인성을 완성할 수 있다.",
            "청소년기에는 친구 같은 아빠의 역할이 더 중요하다.",
            "친구 같은 아빠는 아이가 바른 길로 가도록 도움을 준다.",
            "권위 있는 아빠는 아이에게 삶의 판단 기준을 제시할 수 있다.",
        ],
        "answer": "권위 있는 아빠는 아이에게 삶의 판단 기준을 제시할 수 있다.",
    },
]


def write_click(folder: Path) -> Path:
    """rladmstn1714/CLIcK ``Dataset/``: ``Culture/Korean Law/Law_KIIP.json``
    (commit 046685a: a JSON array, 4-space indent, ``"id":"…"`` without a
    space, a blank line between records; ``paragraph`` empty; the key is the
    option's text, for KIIP_law_11 the number "112") and
    ``Language/Textual/Textual_TOPIK.json`` (commit 6999504: ``paragraph``
    holds the reading passage, shared by TK_2016_18 and 19).  Returns the
    ``Dataset`` folder."""
    root = folder / "Dataset"
    law = root / "Culture" / "Korean Law" / "Law_KIIP.json"
    topik = root / "Language" / "Textual" / "Textual_TOPIK.json"
    law.parent.mkdir(parents=True)
    topik.parent.mkdir(parents=True)
    law.write_text(_KIIP_LAW, encoding="utf-8")
    topik.write_text(json.dumps(_TOPIK, ensure_ascii=False, indent=4), encoding="utf-8")
    return root


# --------------------------------------------------------------------------
# TUMLU: per-subject files, no ids; model outputs carrying their questions

TUMLU_BIOLOGY = [
    {
        "subject": "biology",
        "question": "فوتوسىنتېزدا ATP  شەكىللىنىدىغان ئورۇن:",
        "choices": [
            "خلوروپلاست سىرتقى پەرد",
            "خلوروپلاست ئىچكى پەردىسى",
            "خلوروپلاست ئاساسىي ماددىسى",
            "خالتىسىمان تەنچە",
        ],
        "answer": "D",
    },
    {
        "subject": "biology",
        "question": "تۆۋەندىكى ماددىلار ئىچىدە، قاراڭغۇ رېئاكسىيە باسقۇچىدا زۆرۈر بولىدىغىنى:",
        "choices": ["خلوروفىل", "ADP", "ATP", "O₂"],
        "answer": "C",
    },
    {
        "subject": "biology",
        "question": "فوتوسىنتېز يۈز بېرىدىغان ئورۇن:",
        "choices": ["خلوروفىل", "خلوروپلاست", "خالتىسىمان تەنچىنىڭ نېپىز پەردىسى", "خلوروپلاست ئاساسىي ماددىسى"],
        "answer": "B",
    },
    {
        "subject": "biology",
        "question": "DNA نىڭ نۇسخىلىنىشى يۈز بېرىدىغان دەۋر:",
        "choices": ["بۆلۈنۈش ئارىلىقى دەۋرى", "ئالدىنقى دەۋر", "ئوتتۇرا دەۋرى", "كېيىنكى دەۋرى"],
        "answer": "A",
    },
]
TUMLU_CHEMISTRY = [
    {
        "subject": "chemistry",
        "question": "تۆۋەندىكى ماددىلاردىن، ھاۋادا ئۇزاق تۇرۇپ قالسا ئوكسىدلىنىش-ئوكسىدسىزلىنىش رېئاكسىيىسى يۈز بېرىدىغىنى (   )",
        "choices": ["Na_2O_2", "Na_2SO_4", "Na_2CO_3", "NaOH"],
        "answer": "A",
    },
    {
        "subject": "chemistry",
        "question": "تۆۋەندىكى ماددىلاردىن، سۇدا ئېرىتىلسە ئىككى خىل كىسلاتا ھاسىل قىلىدىغىنى (   )",
        "choices": ["SO_2", "Cl_2", "HCl", "CO_2"],
        "answer": "B",
    },
    {
        "subject": "chemistry",
        "question": "تۆۋەندىكى مولېكۇلىلاردىن، قايسسىسى قۇتۇپلۇق باغقا ئىگە قۇتۇپسىز مولېكۇلا (   ).",
        "choices": ["H_2O", "CCl_4", "NH_3", "Br_2"],
        "answer": "B",
    },
    {
        "subject": "chemistry",
        "question": "تۆۋەندىكى ماددىلاردىن، قۇتۇپسىز كۇۋالېنتلىق باغقا ئىگە بولغىنى (   ).",
        "choices": ["ئازوت گازى", "ناترىي ھىدروكسىد", "ئاتىسېتىلېن", "ھىدروگىن خلورىد"],
        "answer": "A",
    },
    {
        "subject": "chemistry",
        "question": "تۆۋەندىكى ئورگانىك ماددا ناملىرىدىن توغرا بولغىنى (   ).",
        "choices": ["2، 3- دىمېتىل بۇتان", "1، 3، 5- ترىمېتىل پروپان", "2- مېتىل 2- ئېتىل پروپان", "2- ئېتىل پروپان"],
        "answer": "A",
    },
]


def write_tumlu_subject(folder: Path, subject: str, records: list[dict] | None = None) -> Path:
    """ceferisbarov/TUMLU ``data/uyghur/test/<subject>.jsonl`` (commit
    069b9ae): compact JSON lines (``","`` and ``":"`` separators, raw UTF-8),
    ``subject``, ``question``, ``choices`` (4), ``answer`` (a letter); no id.
    Records 2, 3, 4 and 8 of biology.jsonl, 2, 5, 14, 16 and 32 of
    chemistry.jsonl."""
    recs = records if records is not None else {"biology": TUMLU_BIOLOGY, "chemistry": TUMLU_CHEMISTRY}[subject]
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / f"{subject}.jsonl"
    path.write_text("".join(json.dumps(r, ensure_ascii=False, separators=(",", ":")) + "\n" for r in recs),
                    encoding="utf-8")
    return path


_FEW_SHOT = ("سوئال: شۆلگەي كراخمال ئېنزىمىنىڭ ھىدرولىزلىشىنى ئىلگىرى سۈرگۈچى ئېنزىم:\nA) ئاقسىل ئېنزىمى\n"
             "B) كراخمال ئېنزىمى\nC) مالتوزا ئېنزىمى\nD) ياغ ئېنزىمى (لىپازا)\n\nجاۋاب: A\n\n")
TUMLU_OUTPUTS_GEMINI = [
    {
        "question": "فوتوسىنتېزدا ATP  شەكىللىنىدىغان ئورۇن:",
        "choices": [
            "خلوروپلاست ئىچكى پەردىسى",
            "خلوروپلاست ئاساسىي ماددىسى",
            "خالتىسىمان تەنچە",
            "خلوروپلاست سىرتقى پەرد",
        ],
        "output": "جاۋاب: **C) خالتىسىمان تەنچە**\n\nفوتوسىنتېزنىڭ يورۇقلۇققا تايىنىش باسقۇچى خالتىسىمان تەنچە نېپىز پەردىسىدە يۈز بېرىدۇ. بۇ باسقۇچتا، يورۇقلۇق ئېنىرگىيىسى سۈمۈرۈلۈپ، ATP ۋە NADPH ھاسىل قىلىنىدۇ.",
        "answer": "C",
    },
    {
        "question": "تۆۋەندىكى ماددىلار ئىچىدە، قاراڭغۇ رېئاكسىيە باسقۇچىدا زۆرۈر بولىدىغىنى:",
        "choices": ["خلوروفىل", "ADP", "O₂", "ATP"],
        "output": "جاۋاب: D) ATP\n\nقاراڭغۇ رېئاكسىيە باسقۇچىدا، يورۇقلۇق رېئاكسىيە باسقۇچىدا ھاسىل بولغان ATP ۋە NADPH ئىشلىتىلىپ، كاربون تۆت ئوكسىد CO₂ ئورگانىك ماددىغا ئايلاندۇرۇلىدۇ. شۇڭا، ATP قاراڭغۇ رېئاكسىيە باسقۇچى ئۈچۈن زۆرۈر.",
        "answer": "D",
    },
    {
        "question": "فوتوسىنتېز يۈز بېرىدىغان ئورۇن:",
        "choices": ["خلوروپلاست ئاساسىي ماددىسى", "خلوروفىل", "خالتىسىمان تەنچىنىڭ نېپىز پەردىسى", "خلوروپلاست"],
        "output": "جاۋاب: **D) خلوروپلاست**\n\nفوتوسىنتېز خلوروپلاست دەپ ئاتىلىدىغان ئۆسۈملۈك ھۈجەيرىسىنىڭ ئورگانېللىرىدا يۈز بېرىدۇ.",
        "answer": "D",
    },
]


def write_tumlu_outputs(folder: Path, model: str, subject: str, records: list[dict]) -> Path:
    """ceferisbarov/TUMLU ``data/uyghur/outputs/no_cot_instruct/<model>/<subject>.json``
    (commit 38a3a1b): a JSON array, 4-space indent, each record ``description``
    (the few-shot block), ``question``, ``choices`` (in the order shown to the
    model), ``output`` (its raw reply), ``answer`` (the key as shown),
    ``system``, ``input``.  Texts of gemini-1.5-pro's biology.json records 1–3;
    the few-shot block is cut to its first example, the replies to their
    first paragraph."""
    out = []
    for r in records:
        shown = "".join(f"{letter(i)}) {c}\n" for i, c in enumerate(r["choices"]))
        out.append({"description": _FEW_SHOT, "question": r["question"], "choices": r["choices"],
                    "output": r["output"], "answer": r["answer"], "system": _FEW_SHOT,
                    "input": f"سوئال: {r['question']}\n{shown}\nجاۋاب: "})
    path = folder / model / f"{subject}.json"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps(out, ensure_ascii=False, indent=4), encoding="utf-8")
    return path


# --------------------------------------------------------------------------
# GAOKAO-Bench: records inside a JSON object, pretty-printed, options in the question

GAOKAO_BIOLOGY = [
    {
        "year": "2010",
        "category": "（新课标）",
        "question": "1．（ 6分）下列有关细胞的叙述，正确的是（ 　　） \nA．病毒是一类具有细胞结构的生物   \nB．蓝藻细胞具有细胞核且 DNA分子呈环状   \nC．人体所有细胞的细胞周期持续时间相同   \nD．内质网膜和高尔基体膜都具有流动性\n",
        "answer": ["D"],
        "analysis": "解： A、病毒是不具有细胞结构的生物， A错误；  \nB、蓝藻属于原核生物，原核细胞内无细胞核， B错误；  \nC、人体的不同组织 ，细胞分裂的速度不同 ，细胞周期持续的时间不同 ，C错误； \nD、内质网膜与高尔基体膜与细胞膜的结构相似，都具有流动性， D正确。  \n故选： D。\n",
        "index": 0,
        "score": 6,
    },
    {
        "year": "2010",
        "category": "（新课标）",
        "question": "3．（ 6分）若要在普通显微镜下观察到质壁分离、 RNA和脂肪，下列四组材料\n中应选择的一组是（ 　　） \nA．水稻胚乳和花生子叶  B．天竺葵叶和水稻胚乳   \nC．紫色洋葱和花生子叶  D．天竺葵叶和紫色洋葱\n",
        "answer": ["C"],
        "analysis": "解： A、胚乳细胞不含液泡，不能用于观察质壁分离， A错误；  \n故选： C。\n",
        "index": 2,
        "score": 6,
    },
    {
        "year": "2011",
        "category": "（新课标）",
        "question": "1．（6分）将人的红细胞放入 4℃蒸馏水中 ，一段时间后红细胞破裂 ，主要原因\n是（　　） \nA．红细胞具有水溶性  B．红细胞的液泡体积增大   \nC．蒸馏水大量进入红细胞  D．低温时红细胞膜流动性增大\n",
        "answer": ["C"],
        "analysis": "解： A、细胞膜的基本骨架是磷脂双分子层，而磷脂分子的头部具有亲\n水性，故A错误；  \n故选： C。\n",
        "index": 5,
        "score": 6,
    },
]


def write_gaokao(folder: Path) -> Path:
    """OpenLMLab/GAOKAO-Bench ``Data/Objective_Questions/2010-2022_Biology_MCQs.json``
    (commit 5f7f7a0): one JSON object ``{"keywords": …, "example": [records]}``,
    pretty-printed with 4 spaces and ``ensure_ascii=False``; each record
    ``year``, ``category``, ``question`` (the options embedded as ``A．`` …
    with a full-width stop, sometimes two on one line), ``answer`` (a list),
    ``analysis``, ``index``, ``score``.  Records 0, 2 and 5."""
    path = folder / "2010-2022_Biology_MCQs.json"
    path.write_text(json.dumps({"keywords": "2010-2022_Biology_MCQs", "example": GAOKAO_BIOLOGY},
                               ensure_ascii=False, indent=4), encoding="utf-8")
    return path


GAOKAO_MATH = [
    {
        "year": "2010",
        "category": "（新课标）",
        "question": "1. （5 分) 已知集合 $A=\\{x \\in R|| x \\mid \\leqslant 2\\}\\}, B=\\{x \\in Z \\mid \\sqrt{x} \\leqslant 4\\}$, 则 $A \\cap B=(\\quad$ ）\nA. $(0,2)$\nB. $[0,2]$\nC. $\\{0,2\\}$\nD. $\\{0,1,2\\}$\n",
        "answer": ["D"],
        "analysis": "解: 故 $A \\cap B=\\{0,1,2\\}$.\n\n应选 D.\n",
        "index": 0,
        "score": 5,
    },
    # the published record holds "\bar" written with one backslash: JSON "\b", a backspace (U+0008)
    {
        "year": "2010",
        "category": "（新课标）",
        "question": "2. (5 分) 已知复数 $z=\\frac{\\sqrt{3}+i}{(1-\\sqrt{3} i)^{2}}, \\bar{z}$ 是 $z$ 的共轭复数, 则 $z\\cdot\bar{z}=(\\quad)$\nA. $\\frac{1}{4}$\nB. $\\frac{1}{2}$\nC. 1\nD. 2\n",
        "answer": ["A"],
        "analysis": "解: 故选: A.\n",
        "index": 1,
        "score": 5,
    },
    {
        "year": "2011",
        "category": "（新课标）",
        "question": "10. (5 分) 已知 $\\vec{a}$ 与 $\\vec{b}$ 均为单位向量, 其夹角为 $\\theta$, 有下列四个命题 $P_{1}: \\mid \\vec{a}+\\vec{b}$ $>1 \\Leftrightarrow \\theta \\in\\left[0, \\frac{2 \\pi}{3}\\right) ; P_{2}:|\\vec{a}+\\vec{b}|>1 \\Leftrightarrow \\theta \\in\\left(\\frac{2 \\pi}{3}, \\pi\\right] ; P_{3}:|\\vec{a}-\\vec{b}|>1 \\Leftrightarrow \\theta \\in[0$ ， $\\left.\\frac{\\pi}{3}\\right) ; P_{4}:|\\vec{a}-\\vec{b}|>1 \\Leftrightarrow \\theta \\in\\left(\\frac{\\pi}{3}, \\pi\\right]$ ；其中的真命题是（ $)$\nA. $P_{1}, P_{4}$\nB. $P_{1}, P_{3}$\nC. $P_{2}, P_{3}$\nD. $P_{2}, P_{4}$\n",
        "answer": ["A"],
        "analysis": "解: 故选: A.\n",
        "index": 15,
        "score": 5,
    },
]


def write_gaokao_math(folder: Path) -> Path:
    """OpenLMLab/GAOKAO-Bench ``Data/Objective_Questions/2010-2022_Math_I_MCQs.json``
    (commit 5f7f7a0): the same wrapper; LaTeX-heavy Chinese stems (more Latin
    letters in ``\\frac``, ``\\sqrt``, ``\\vec`` than Han characters), options
    ``A. $…$`` on their own lines.  Records 0, 1 and 15; ``analysis`` cut to its
    last line."""
    path = folder / "2010-2022_Math_I_MCQs.json"
    path.write_text(json.dumps({"keywords": "2010-2022_Math_I_MCQs", "example": GAOKAO_MATH},
                               ensure_ascii=False, indent=4), encoding="utf-8")
    return path


def embedded_options(text: str, markers: str = "．.") -> tuple[str, list[str]]:
    """Stem and options of a question whose options are embedded as
    ``A．`` … ``D．`` (or ``A.``): each marker is the next letter in order
    after the previous one, at a line start or after two spaces."""
    import re

    pos, found = 0, []
    for lab in "ABCD":
        m = re.compile(rf"(?:^|\n|\s\s)({lab}[{re.escape(markers)}])\s*").search(text, pos)
        if not m:
            break
        found.append((m.start(1), m.end()))
        pos = m.end()
    stem = text[:found[0][0]]
    opts = [text[end:(found[i + 1][0] if i + 1 < len(found) else len(text))] for i, (_, end) in enumerate(found)]
    return stem, opts


# --------------------------------------------------------------------------
# header-less CSV in the MMLU order: question, A, B, C, D, answer

JMMLU_GLOBAL_FACTS = (
    "1850年の米国の一人当たりGDPは、インフレ調整後、2011年の物価でPPP調整するといくらか？, 約300ドル , 約3000ドル , 約8000ドル , 約15000ドル,B\n"
    "2019年現在、同性愛を社会が受け入れるべきだとするアメリカ人の割合は？,52%,62%,72%,82%,C\n"
    "2019年、太陽光発電による総エネルギー量が最も多かった国は次のうちどれか？, 中国 , アメリカ , ドイツ , 日本,A\n"
    '2016年、米国でホームレスになった人の数は？,"55,000人","550,000人","5,500,000人","55,000,000人",B\n'
    "ロス・ペロー、6月の大統領選で第3党候補として39％の得票率で一時首位に立ち、世論調査の歴史に名を刻む。彼は最終的に人気投票の_%を獲得した。,1,7,13,19,D\n"
)
MMLU_GLOBAL_FACTS = (
    '"As of 2016, about what percentage of adults aged 18 years or older were overweight?",10%,20%,40%,80%,C\n'
    "What was GDP per capita in the United States in 1850 when adjusting for inflation and PPP in 2011 prices?,About $300,About $3k,About $8k,About $15k,B\n"
    '"In 2016, about how many people in the United States were homeless?","55,000","550,000","5,500,000","55,000,000",B\n'
    "Ross Perot makes polling history by leading the presidential race briefly in June as a third-party candidate with 39%. He winds up with _% of the popular vote.,1,7,13,19,D\n"
    'What is the median international income as of 2020?,$300,"$1,000","$10,000","$30,000",C\n'
)


def write_jmmlu(folder: Path) -> Path:
    """nlp-waseda/JMMLU ``JMMLU/global_facts.csv`` (commit bf5dc03): no
    header row; columns question, A, B, C, D, answer; options with spaces
    around them (`` 約300ドル ``), numbers as options (1, 7, 13, 19).
    Rows 1, 2, 3, 19 and 34."""
    path = folder / "global_facts.csv"
    path.write_text(JMMLU_GLOBAL_FACTS, encoding="utf-8")
    return path


def write_mmlu_test(folder: Path) -> Path:
    """hendrycks/test ``data/test/global_facts_test.csv`` (commit f112c7a):
    MMLU's own layout, no header row, the first row quoted.  Rows 1, 2, 20,
    35 and 74.  Returns ``data/test``."""
    d = folder / "data" / "test"
    d.mkdir(parents=True)
    (d / "global_facts_test.csv").write_text(MMLU_GLOBAL_FACTS, encoding="utf-8")
    return d


# --------------------------------------------------------------------------
# KMMLU: Korean, keys counted from 1

KMMLU_AGRI = (
    "question,answer,A,B,C,D,Category,Human Accuracy\n"
    "지하발아형 종자가 아닌 것은?,1,콩,완두,보리,옥수수,Agricultural Sciences,0.6915\n"
    "옥수수 복교잡종의 특징이 아닌 것은?,4,종자값이 저렴하다.,여러 환경조건에 대한 완충능력이 있다.,"
    "개화기간이 길어 다른 교잡종보다 수분기회가 많아 이삭이 충실해진다.,"
    "불량 환경조건일 때 종자의 균일도가 단교잡종이나 삼원교잡종 종자보다 낮다.,Agricultural Sciences,0.6257\n"
    "\"완두 종자를 AㆍB 창고에 보관한 후 전기전도도 조사를 실시한 결과, A창고에 보관한 완두 종자의 침출액이 더 많았다. "
    "종자퇴화는 어느 것이 더 진전되었는가?\",1,A창고 완두 종자가 더 퇴화되었다.,B창고 완두 종자가 더 퇴화되었다.,"
    "A창고와 B창고 완두 종자의 퇴화는 똑같다.,비교할 수 없다.,Agricultural Sciences,0.8595\n"
)


def write_kmmlu(folder: Path) -> Path:
    """HAERAE-HUB/KMMLU ``data/Agricultural-Sciences-dev.csv``: header
    ``question,answer,A,B,C,D,Category,Human Accuracy`` (a space in a column
    name), ``answer`` counting from 1.  Rows 1, 3 and 4; the stored page
    showed the UTF-8 as mojibake, the Hangul was restored by re-encoding (a
    few lost bytes filled in by reading)."""
    path = folder / "Agricultural-Sciences-dev.csv"
    path.write_text(KMMLU_AGRI, encoding="utf-8")
    return path


# --------------------------------------------------------------------------
# ParsiNLU: ids repeating within a file, 1-based keys, empty trailing candidates

PARSINLU = [
    {
        "answer": "1",
        "candidates": ["ایران", "عربستان", "عراق", "سوریه"],
        "category": "common_knowledge",
        "question": "کدام کشور اولین تولید کننده خرما در جهان است؟",
        "id": "Alefba-960269147951-62_Omoomi_Sample_Etelat_Omomi4__estekhdamshoo.ir",
    },
    {
        "answer": "3",
        "candidates": ["ریاست کشور", "نظارت عالیه", "تنظیم کننده قوای سه گانه", "حاکمیت مطلق"],
        "category": "common_knowledge",
        "question": "مقام رهبری در قانون اساسی جمهوری اسلامی دارای چه کار ویژه ای است؟",
        "id": "Alefba-960269147951-62_Omoomi_Sample_Etelat_Omomi4__estekhdamshoo.ir",
    },
    {
        "answer": "1",
        "candidates": ["الماس", "گرانیت", "", ""],
        "category": "common_knowledge",
        "question": "الماس سخت تر است یا گرانیت؟",
        "id": "https://irancontent.net/common-general-knowledge-test/",
    },
    {
        "answer": "2",
        "candidates": ["یک ماه", "ده روز", "دو هفته", "تا حصول اطمینان"],
        "category": "common_knowledge",
        "question": "طبق قانون اساسی شورای نگهبان طی چند روز از تاریخ وصول باید نظر خود را نسبت به مصوبات مجلس\r\nاعلام نماید؟\r",
        "id": "http://Alefba-347359147951-15_Omoomi_Sample_Etelat_Omomi1__estekhdamshoo.ir",
    },
    {
        "answer": "4",
        "candidates": ["آیت الله بهشتی", "آیت الله کروبی", "آیت الله رفسنجانی", "آیت الله ناطق نوری"],
        "category": "common_knowledge",
        "question": "ریاست اولین دوره مجلس شورای اسلامی بر عهده چه کسی بود؟",
        "id": "Alefba-823799147951-91_Omoomi_Sample_Etelat_Omomi4__estekhdamshoo.ir.docx",
    },
    {
        "answer": "3",
        "candidates": ["سوره اسراء", "سوره توبه", "سوره واقعه", "سوره نحل"],
        "category": "common_knowledge",
        "question": "سوره بیست و هفتم قرآن کریم کدامست؟",
        "id": "Alefba-823799147951-91_Omoomi_Sample_Etelat_Omomi4__estekhdamshoo.ir.docx",
    },
    {
        "answer": "2",
        "candidates": ["داوینچی", "شکسپیر", "کافکا", ""],
        "category": "common_knowledge",
        "question": "کتاب هملت را چه کسی نوشته؟",
        "id": "https://irancontent.net/common-general-knowledge-test/",
    },
]


def write_parsinlu(folder: Path) -> Path:
    """persiannlp/parsinlu ``data/multiple-choice/test_ck.jsonl`` (commit
    0d52f06): ``answer`` (1-based, as text), ``candidates`` (4, some
    trailing ones empty), ``category``, ``question`` (one holding ``\\r\\n``
    and a trailing ``\\r``), ``id`` — the source URL or document, so it
    repeats.  Records 1–6 and 26."""
    path = folder / "test_ck.jsonl"
    path.write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in PARSINLU), encoding="utf-8")
    return path


# --------------------------------------------------------------------------
# MM-Eval beside a multiple-choice file: one file of the folder is not MC

MM_EVAL = [
    {
        "prompt": '다음 문장에서 높임법이 잘못 쓰인 부분을 고쳐 주세요: "할머니께서 밥을 먹는다."',
        "chosen": "\"할머니께서 진지를 잡수신다.\"로 고쳐야 합니다. 주체가 할머니이므로 '먹다' 대신 높임말 '잡수시다'를 씁니다.",
        "rejected": '"할머니께서 밥을 먹었다."로 고치면 됩니다.',
        "language": "ko",
        "subset": "linguistics",
        "chosen_model": "human",
        "rejected_model": "gpt-4o-mini",
        "id": 4021,
    },
    {
        "prompt": "Write a haiku about the monsoon in Bhutan.",
        "chosen": "Clouds cling to the dzong / prayer flags heavy with rain / the valley breathes green",
        "rejected": "Rain.",
        "language": "en",
        "subset": "chat",
        "chosen_model": "human",
        "rejected_model": "llama-3-8b",
        "id": 4022,
    },
]


def write_mm_eval_folder(folder: Path) -> Path:
    """A benchmark folder holding a multiple-choice file (KMMLU's layout)
    beside an MM-Eval file (prometheus-eval/MM-Eval: ``prompt``, ``chosen``,
    ``rejected``, ``language``, ``subset``, ``chosen_model``,
    ``rejected_model``, ``id`` — pairwise preferences, no options, no key).
    MM-Eval is published as Parquet; its records are written here as JSONL
    with the published field names (texts written for the test)."""
    d = folder / "ko_bench"
    d.mkdir()
    write_kmmlu(d)
    (d / "mm_eval_ko.jsonl").write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in MM_EVAL),
                                        encoding="utf-8")
    return d


# --------------------------------------------------------------------------
# CMiLBench: a Chinese stem with Tibetan, Uyghur or Mongolian options

CMIL = {
    "bo": [
        {
            "id": "chinese_minority_knowledge_tasks_minority_language_expressions_bo_71",
            "question": "忠言逆耳",
            "option": ["ཤ་ཚའི་ཁ་ནས་གཏམ་སྙན་མེད།", "སྨན་བཟང་ཁ་སྡུག་", "གཏམ་བཤད་མཁན་ལ་ཉེས་པ་མེད་པ་", "ཆུ་ལྡོག་གྲུ་གཟིངས་"],
            "answer": "A",
            "metadata": {
                "language": "bo",
                "difficulty": "hard",
                "task_category": "Chinese Minority Knowledge Tasks",
                "task_name": "Minority Language Expressions",
            },
        },
        {
            "id": "chinese_minority_knowledge_tasks_minority_language_expressions_bo_90",
            "question": "敢怒不敢言",
            "option": ["སེམས་ལ་སྐྲག་པ།", "སྐད་ཆ་བཤད་འདོད་ཀྱང་མཚམས་འཇོག་", "ཁོང་ཁྲོ་མིད་པ།", "ཁོག་ནང་མེ་འབར་ཡང་སྣ་ནས་དུ་བ་མི་ཐོན།"],
            "answer": "D",
            "metadata": {
                "language": "bo",
                "difficulty": "hard",
                "task_category": "Chinese Minority Knowledge Tasks",
                "task_name": "Minority Language Expressions",
            },
        },
    ],
    "ug": [
        {
            "id": "chinese_minority_knowledge_tasks_minority_language_expressions_ug_140",
            "question": "物以稀为贵",
            "option": [
                "نەرسىلەر قىممەتلىك",
                "نەرسىلەر ئاز بولسا قىممەتلىك",
                "نەرسىلەرنىڭ كەم بولۇشى غەلىتە",
                "ئاز ئۇچرايدىغان نەرسە قىممەتلىك بولۇر",
            ],
            "answer": "D",
            "metadata": {
                "language": "ug",
                "difficulty": "medium",
                "task_category": "Chinese Minority Knowledge Tasks",
                "task_name": "Minority Language Expressions",
            },
        },
        {
            "id": "chinese_minority_knowledge_tasks_minority_language_expressions_ug_372",
            "question": "核电",
            "option": ["يادرو ئېلېكتىر", "بوغالتىرلىق", "يادرولۇق", "ياڭاق"],
            "answer": "A",
            "metadata": {
                "language": "ug",
                "difficulty": "medium",
                "task_category": "Chinese Minority Knowledge Tasks",
                "task_name": "Minority Language Expressions",
            },
        },
    ],
    "mn": [
        {
            "id": "chinese_minority_knowledge_tasks_minority_language_expressions_mn_61",
            "question": "离山的虎，离水的鱼",
            "option": [
                "ᠪᠠᠷᠰ ᠤᠨᠠᠪᠠᠯ ᠨᠣᠬᠠᠶ ᠳᠤ ᠮᠡᠬᠡᠯᠡᠭᠳᠡᠨᠡ",
                "ᠨᠡᠷᠡ ᠭᠠᠷᠬᠤ ᠠᠴᠠ ᠠᠶᠤᠪᠠᠯ ᠭᠠᠬᠠᠶ ᠭᠠᠷᠬᠤ ᠠᠴᠠ ᠠᠶᠤᠨᠠ",
                "ᠯᠣᠣ ᠶᠢᠨ ᠤᠰᠤᠨ ᠳᠤ ᠰᠠᠮ ᠤᠨ ᠲᠣᠭᠯᠠᠭᠠ ᠳᠤ ᠤᠴᠠᠷᠠᠨᠠ",
                "ᠠᠭᠤᠯᠠᠨ ᠠᠴᠠ ᠰᠠᠯᠤᠭᠰᠠᠨ ᠪᠠᠷᠰ\nᠤᠰᠤᠨ ᠠᠴᠠ ᠰᠠᠯᠤᠭᠰᠠᠨ ᠵᠢᠭᠠᠰᠤ ᠃",
            ],
            "answer": "D",
            "metadata": {
                "language": "mn",
                "difficulty": "hard",
                "task_category": "Chinese Minority Knowledge Tasks",
                "task_name": "Minority Language Expressions",
            },
        },
        {
            "id": "chinese_minority_knowledge_tasks_minority_language_expressions_mn_65",
            "question": "嘴巴无比硬，身上光着腚",
            "option": [
                "ᠰᠠᠶᠢᠬᠠᠨ ᠬᠡᠯᠡᠵᠦ᠂ ᠮᠠᠭᠤᠬᠠᠢ ᠬᠢᠬᠦ",
                "ᠠᠮᠠ ᠨᠢ ᠪᠠᠷᠳᠠᠮ\nᠠᠯᠠ ᠨᠢ ᠱᠠᠯᠳᠠᠩ ᠃",
                "ᠠᠮᠠᠨ ᠳᠡᠭᠡᠷᠡ ᠪᠡᠨ ᠦᠰᠦ ᠦᠭᠡᠢ᠂ ᠠᠵᠢᠯ ᠬᠢᠬᠦ ᠳᠡᠭᠡᠨ ᠪᠠᠲᠤ ᠦᠭᠡᠢ",
                "ᠬᠣᠭᠣᠰᠣᠨ ᠶᠠᠷᠢᠭᠠᠳ ᠬᠠᠭᠤᠷᠮᠠᠭ ᠠᠷᠭᠠ ᠶᠢ ᠪᠣᠯᠪᠠᠰᠤᠷᠠᠬᠤ ᠦᠭᠡᠢ",
            ],
            "answer": "B",
            "metadata": {
                "language": "mn",
                "difficulty": "hard",
                "task_category": "Chinese Minority Knowledge Tasks",
                "task_name": "Minority Language Expressions",
            },
        },
    ],
}


def write_cmilbench(folder: Path) -> Path:
    """4real3000/CMiLBench ``data/Chinese_Minority_Knowledge_Tasks/Minority_Language_Expressions/{bo,ug,mn}.json``
    (commit 4fbae33): JSON arrays, 2-space indent, ``id``, ``question`` (a
    Chinese saying), ``option`` (its Tibetan, Uyghur or Mongolian
    rendering, Mongolian ones with line breaks), ``answer`` (a letter),
    ``metadata`` (``language``, ``difficulty``, ``task_category``,
    ``task_name``).  Two records of each file.  Returns the task folder."""
    d = folder / "Minority_Language_Expressions"
    d.mkdir()
    for lang, recs in CMIL.items():
        (d / f"{lang}.json").write_text(json.dumps(recs, ensure_ascii=False, indent=2), encoding="utf-8")
    return d


# --------------------------------------------------------------------------
# JSONL strings holding U+0085, U+2028, U+2029

def write_jsonl_line_separators(folder: Path) -> Path:
    """TUMLU's test layout (compact JSON lines) whose strings hold the three
    characters Python's ``str.splitlines`` treats as line ends but JSON and
    JSONL do not: NEL (U+0085), LINE SEPARATOR (U+2028) and PARAGRAPH
    SEPARATOR (U+2029), raw (``ensure_ascii=False``), as text pasted from
    word processors and PDFs carries them."""
    recs = [dict(TUMLU_CHEMISTRY[0]), dict(TUMLU_CHEMISTRY[1]), dict(TUMLU_CHEMISTRY[2])]
    recs[0]["question"] = recs[0]["question"].replace("، ", "،\u0085", 1)
    recs[1]["choices"] = ["SO_2\u2028(gaz)"] + recs[1]["choices"][1:]
    recs[2]["question"] = recs[2]["question"].replace(" (", "\u2029(", 1)
    return write_tumlu_subject(folder, "chemistry", recs)


# --------------------------------------------------------------------------
# archives: EXAMS (.jsonl.tar.gz), DZEN (.zip)

EXAMS = [
    {
        "id": "35dd6a13-7e71-11ea-9eb1-54bef70b159e",
        "question": {
            "stem": "Aşağıdakilerden hangisi bir asittir?",
            "choices": [
                {"text": "HCl", "label": "A"},
                {"text": "NaOH", "label": "B"},
                {"text": "NaCl", "label": "C"},
                {"text": "KOH", "label": "D"},
                {"text": "NH3", "label": "E"},
            ],
        },
        "answerKey": "A",
        "info": {"grade": 12, "subject": "Chemistry", "language": "Turkish"},
    },
    {
        "id": "35dd6a19-7e71-11ea-9eb1-54bef70b159e",
        "question": {
            "stem": "Кой от изброените елементи е благороден газ?",
            "choices": [
                {"text": "Кислород", "label": "A"},
                {"text": "Аргон", "label": "B"},
                {"text": "Азот", "label": "C"},
                {"text": "Водород", "label": "D"},
            ],
        },
        "answerKey": "B",
        "info": {"grade": 12, "subject": "Chemistry", "language": "Bulgarian"},
    },
    {
        "id": "35dd6a1b-7e71-11ea-9eb1-54bef70b159e",
        "question": {
            "stem": "Koji je glavni grad Hrvatske?",
            "choices": [
                {"text": "Split", "label": "A"},
                {"text": "Rijeka", "label": "B"},
                {"text": "Zagreb", "label": "C"},
            ],
        },
        "answerKey": "C",
        "info": {"grade": 8, "subject": "Geography", "language": "Croatian"},
    },
]


def write_exams_tar(folder: Path) -> Path:
    """mhardalov/exams-qa ``data/exams/multilingual/dev.jsonl.tar.gz``: a
    gzip-compressed tar holding one member ``dev.jsonl`` at its root (the
    name the HF loader looks for), ARC's layout: ``id`` (a UUID),
    ``question`` {``stem``, ``choices``: [{``text``, ``label``}] (3 to 5)},
    ``answerKey``, ``info`` {``grade`` (a number), ``subject``,
    ``language``}.  The archive is binary in the store: the layout is taken
    from the published loaders (``scripts/evaluation/evaluate_exams.py``,
    ``utils_multiple_choice.ExamsProcessor``, HF ``exams.py``) and the ids
    from ``sample_predictions.jsonl``; the question texts were written for
    the test."""
    data = "".join(json.dumps(r, ensure_ascii=False) + "\n" for r in EXAMS).encode("utf-8")
    path = folder / "dev.jsonl.tar.gz"
    with tarfile.open(path, "w:gz") as tf:
        info = tarfile.TarInfo("dev.jsonl")
        info.size = len(data)
        info.mtime = 1586800000
        tf.addfile(info, io.BytesIO(data))
    return path


DZEN_HEADER = ["Subject", "Grade", "Question", "A", "B", "C", "D", "Question.1", "A.1", "B.1", "C.1", "D.1", "Answer "]
DZEN_ROWS = [
    [
        "Chemistry",
        "9",
        "ཆུ་ ཚ་ཚད་ ཌི་གྲི་ ༡༠༠ ལུ་ ལྷོདཔ་ད་ ག་ཅི་ འབྱུངམ་ཨིན་ན།",
        "ཁོལཝ་ཨིན།",
        "འཁྱགས་ཨིན།",
        "ཡལ་བ་མེད།",
        "ལྕི་ཚད་ ཡར་འཕར་ཨིན།",
        "What happens to water when it reaches 100 degrees Celsius?",
        "It boils.",
        "It freezes.",
        "Nothing happens.",
        "Its weight increases.",
        "A",
    ],
    [
        "Physics",
        "10",
        "འོད་ཀྱི་ མགྱོགས་ཚད་ གང་ཡིན་ན།",
        "༣༠༠,༠༠༠ km/s",
        "༣༠༠ km/s",
        "༣,༠༠༠ km/s",
        "༣༠,༠༠༠ km/s",
        "What is the speed of light?",
        "300,000 km/s",
        "300 km/s",
        "3,000 km/s",
        "30,000 km/s",
        "A",
    ],
    [
        "Biology",
        "9",
        "འཚོ་ཐིག་གི་ ནུས་ཤུགས་ བཟོ་ས་ ག་ཅི་ཨིན་ན།",
        "ལྟེ་བ།",
        "མི་ཊོ་ཀོན་ཌི་ཡ།",
        "ཕྱི་ཤུན།",
        "ཆུ་ཁུག",
        "Which organelle is the powerhouse of the cell?",
        "Nucleus",
        "Mitochondria",
        "Cell membrane",
        "Vacuole",
        "B",
    ],
]


def write_dzen_zip(folder: Path) -> Path:
    """DZEN (kraritt/llm_dzongkha_evaluation, ``1652_Multilingual_Question_Ans_Supplementary Material.zip``):
    a zip archive (with a space in its name) holding the parallel Dzongkha
    and English questions, both languages of an item in one row.  The
    archive is binary in the store and could not be read: this excerpt
    follows the published description (parallel Dzongkha/English, science
    subjects, grades 9–10) and the quirks the earlier import run reported —
    column names containing '.' (the English copies of the Dzongkha columns,
    as pandas names a repeated header) and one ending in a space
    (``Answer ``).  The rows were written for the test."""
    buf = io.StringIO()
    w = csv.writer(buf, lineterminator="\n")
    w.writerow(DZEN_HEADER)
    w.writerows(DZEN_ROWS)
    path = folder / "1652_Multilingual_Question_Ans_Supplementary Material.zip"
    with zipfile.ZipFile(path, "w", compression=zipfile.ZIP_DEFLATED) as zf:
        zf.writestr("Supplementary Material/DZEN/dzen_science.csv", buf.getvalue().encode("utf-8"))
    return path


# --------------------------------------------------------------------------
# hostile archives

def write_hostile_archive(folder: Path, kind: str) -> Path:
    """An EXAMS-shaped archive that must be refused before anything is read
    into the database: ``escape`` (a member ``../../escaped.jsonl``),
    ``absolute`` (a member ``/tmp/…``), ``symlink`` (a tar member linking to
    ``/etc/passwd``), ``bomb`` (a gzip stream that expands to more than
    1 GiB of valid JSONL: 129 gzip members of the same 8 MiB, so the file is
    4 MB and is built in a blink) and ``nested`` (a zip inside the zip)."""
    rec = (json.dumps(EXAMS[0], ensure_ascii=False) + "\n").encode("utf-8")
    if kind in ("escape", "absolute"):
        path = folder / f"{kind}.zip"
        name = "../../escaped.jsonl" if kind == "escape" else str(folder / "absolute_target.jsonl")
        with zipfile.ZipFile(path, "w") as zf:
            zf.writestr("dev.jsonl", rec)
            zf.writestr(zipfile.ZipInfo(name), rec)
        return path
    if kind == "symlink":
        path = folder / "symlink.jsonl.tar.gz"
        with tarfile.open(path, "w:gz") as tf:
            info = tarfile.TarInfo("dev.jsonl")
            info.type = tarfile.SYMTYPE
            info.linkname = "/etc/passwd"
            tf.addfile(info)
        return path
    if kind == "bomb":
        path = folder / "dev.jsonl.gz"
        chunk = rec * (8 * 1024 * 1024 // len(rec))
        member = gzip.compress(chunk, compresslevel=9)
        with open(path, "wb") as fh:
            for _ in range((1 << 30) // len(chunk) + 1):
                fh.write(member)
        return path
    if kind == "nested":
        inner = io.BytesIO()
        with zipfile.ZipFile(inner, "w") as zf:
            zf.writestr("dev.jsonl", rec)
        path = folder / "nested.zip"
        with zipfile.ZipFile(path, "w") as zf:
            zf.writestr("inner.zip", inner.getvalue())
        return path
    raise ValueError(kind)


# --------------------------------------------------------------------------
# MMLU-Pro's published per-model result files (real, in ../shared/data)

def mmlu_pro_records(folder: Path) -> dict[str, list[dict]]:
    """The model (from the file name) → its records (the stray strings
    between records left out), read with ``json``."""
    out = {}
    for f in sorted(folder.glob("model_outputs_*_5shots.json")):
        model = f.name[len("model_outputs_"):-len("_5shots.json")]
        out[model] = [r for r in json.loads(f.read_text(encoding="utf-8")) if isinstance(r, dict)]
    return out


# --------------------------------------------------------------------------
# what an import writes from Python (audit hooks cannot be removed: one hook,
# switched on and off by the context manager)

_WRITES: list[list[str]] = []


def _audit_hook(event: str, args) -> None:
    if event != "open" or not _WRITES:
        return
    path, mode, flags = (tuple(args) + (None, None, None))[:3]
    import os

    writing = (isinstance(mode, str) and any(c in mode for c in "wax+")) or (
        isinstance(flags, int) and flags & (os.O_WRONLY | os.O_RDWR | os.O_CREAT))
    if writing and isinstance(path, (str, bytes, os.PathLike)):
        _WRITES[-1].append(os.fsdecode(path))


_HOOKED = False


class watch_writes:
    """Collect the paths Python code opens for writing inside the block
    (DuckDB's and Arrow's own C++ writes are not seen: the database and the
    staging Parquet files)."""

    def __enter__(self) -> list[str]:
        global _HOOKED
        import sys

        if not _HOOKED:
            sys.addaudithook(_audit_hook)
            _HOOKED = True
        _WRITES.append([])
        return _WRITES[-1]

    def __exit__(self, *exc) -> None:
        _WRITES.pop()
