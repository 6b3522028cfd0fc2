"""``audit import questions``: a generic question file (CSV, JSONL or Parquet).

Columns: ``id``, ``question``, ``answer`` (required); the options either as
columns ``A``…``F`` (filled from ``A`` on, no gaps) or as one ``options``
column holding a list (in CSV a JSON or Python list literal); optional
``subject``, ``language``, ``script``, ``explanation``.  Any other column is
an error (so a misspelt column is never silently ignored).

``answer`` may be a Latin letter (any case), a Tibetan letter ཀ ཁ ག ང (→ A–D)
or a 0-based option index (``0`` → A, ``3`` → D).  An answer that is not one of
the item's labels is imported as given and flagged ``key_not_in_options``.

Text is normalised to Unicode NFC (Tibetan typed in NFD compares equal);
the text as imported is kept in ``raw_text`` and ``source_record``.
"""
from __future__ import annotations

import ast
import itertools
import json
import os
import re
import unicodedata
from dataclasses import dataclass
from pathlib import Path

from audit.errors import InputError
from audit.ingest._read import iter_table, nfc, read_table, require_columns
from audit.ingest._store import item_flags, store_questions
from audit.labels import LATIN_LABELS, MAX_OPTIONS, MIN_OPTIONS, TIBETAN_TO_LATIN
from audit.records import Option, Question
from audit.store import connect, transaction

OPTION_COLUMNS = list(LATIN_LABELS)
OPTIONAL_COLUMNS = {"subject", "language", "script", "explanation"}
ALLOWED_COLUMNS = {"id", "question", "answer", "options", *OPTION_COLUMNS, *OPTIONAL_COLUMNS}

# Language subtag → ISO 15924 script, for the languages this tool is built for.
_LANGUAGE_SCRIPT = {
    "bo": "Tibt", "dz": "Tibt", "zh-hans": "Hans", "zh-cn": "Hans", "zh-sg": "Hans", "zh": "Hans",
    "zh-hant": "Hant", "zh-tw": "Hant", "zh-hk": "Hant", "zh-mo": "Hant", "ug": "Arab", "ug-arab": "Arab",
    "kk-arab": "Arab", "ky-arab": "Arab", "ar": "Arab", "fa": "Arab", "ur": "Arab", "mn-mong": "Mong",
    "mn-cyrl": "Cyrl", "mn": "Cyrl", "kk": "Cyrl", "ru": "Cyrl", "ky": "Cyrl", "en": "Latn", "fr": "Latn",
    "de": "Latn", "es": "Latn", "ug-latn": "Latn", "kk-latn": "Latn", "ja": "Jpan", "ko": "Kore",
}
# Characters whose simplified and traditional forms differ (common ones), to
# tell Hans from Hant when neither language nor script is given.
_SIMPLIFIED = set("们这个说时国会来对后学发经过动么见长门问间关开东车马鸟龙为与书买卖们从义乐习气汉头两业丽应边运还进远选认让论设证识话语读调谈贵费资质钱铁银错陈阳阴际难页题风飞饭馆驾验华单区医协厂历压县参双变号叶听员图围圆团处备复够奖实宁对导层岁币师带帮广庆库废张弹录归当态总战执扩护报择换据数断无时显术杂权条来极构标样机杀杂楼档欢步毕汇沟没济测浓热爱独环现电画疗盘确礼种称积窝笔简类红级纪线练组细织终经结给统继绩续维综绿网罗职联肃胜脑节艺药营虽蛮补装观规视览觉计订认讨让训议讯记讲许论诉诊词译试诗诚话该详语误说请诸读课谁调谢谈谊谋谓谜豆贝负贡财责贤败货质贩贪贫购贯贴贵贷贸费贺赋资赏赔赖赚赛赞赶赵趋跃践踪躯车轨军转轮软轻载较辅辆辈辉输辞辩边达过运还这进远违连迟适选递逻遗邮邻郑酝酱释里钟钢钱铁铃铜铭银锁锅错键镇长门闪闭问闯闲间闹闻阀阁阅队阳阴阵阶际陆陈险随隐难雏雾静页顶项顺须顾顿颁预领颇频题颜额风飘飞饥饭饮饰饱饼馆首驱驶驻驾验骑骗髓鱼鲜鸟鸡鸣鸭麦黄齐齿龄龙龟")
_TRADITIONAL = set("們這個說時國會來對後學發經過動麼見長門問間關開東車馬鳥龍為與書買賣從義樂習氣漢頭兩業麗應邊運還進遠選認讓論設證識話語讀調談貴費資質錢鐵銀錯陳陽陰際難頁題風飛飯館駕驗華單區醫協廠歷壓縣參雙變號葉聽員圖圍圓團處備復夠獎實寧導層歲幣師帶幫廣慶庫廢張彈錄歸當態總戰執擴護報擇換據數斷無顯術雜權條極構標樣機殺樓檔歡步畢匯溝沒濟測濃熱愛獨環現電畫療盤確禮種稱積窩筆簡類紅級紀線練組細織終結給統繼績續維綜綠網羅職聯肅勝腦節藝藥營雖蠻補裝觀規視覽覺計訂討訓議訊記講許訴診詞譯試詩誠該詳誤請諸課誰謝誼謀謂謎貝負貢財責賢敗貨販貪貧購貫貼貸貿賀賦賞賠賴賺賽贊趕趙趨躍踐蹤軀軌軍轉輪軟輕載較輔輛輩輝輸辭辯達違連遲適遞邏遺郵鄰鄭醞醬釋裡鐘鋼鈴銅銘鎖鍋鍵鎮閃閉闖閒鬧聞閥閣閱隊陣階陸險隨隱雛霧靜頂項順須顧頓頒預領頗頻顏額飄饑飲飾飽餅首驅駛駐騎騙髓魚鮮雞鳴鴨麥黃齊齒齡龜")


@dataclass
class QuestionImportSummary:
    benchmark: str
    path: str
    questions: int
    key_not_in_options: int
    flagged: int
    scripts: dict[str, int]

    def __str__(self) -> str:
        scripts = ", ".join(f"{k} {v}" for k, v in sorted(self.scripts.items()))
        return (f"imported {self.questions:,} questions into '{self.benchmark}' ({scripts}); "
                f"{self.key_not_in_options} with a key not among the options, {self.flagged} flagged in total")


def script_of(text: str | None, language: str | None = None) -> str | None:
    """ISO 15924 script from a language tag, else from the letters of the text.

    >>> [script_of(t) for t in ["བོད་ཡིག", "这个问题", "這個問題", "ئۇيغۇر", "ᠮᠣᠩᠭᠣᠯ", "Hello"]]
    ['Tibt', 'Hans', 'Hant', 'Arab', 'Mong', 'Latn']
    >>> script_of("anything", "zh-Hant")
    'Hant'
    """
    if language:
        tag = str(language).strip().lower().replace("_", "-")
        if tag in _LANGUAGE_SCRIPT:
            return _LANGUAGE_SCRIPT[tag]
        parts = tag.split("-")
        for part in parts[1:]:
            if len(part) == 4 and part.isalpha():  # an explicit script subtag
                return part.capitalize()
        if parts[0] in _LANGUAGE_SCRIPT:
            return _LANGUAGE_SCRIPT[parts[0]]
    if not text:
        return None
    text = text[:4000]  # enough letters to decide; keeps long items cheap
    counts = {name: len(rx.findall(text)) for name, rx in _SCRIPT_RX.items()}
    best = max(counts, key=lambda s: (counts[s], s))
    if counts[best] == 0:
        return None
    if best == "Hani":
        han = _SCRIPT_RX["Hani"].findall(text)
        simp = sum(ch in _SIMPLIFIED for ch in han)
        trad = sum(ch in _TRADITIONAL for ch in han)
        return "Hant" if trad > simp else "Hans"
    return best


_SCRIPT_RX = {
    "Tibt": re.compile("[\u0F00-\u0FFF]"),
    "Arab": re.compile("[\u0600-\u06FF\u0750-\u077F\uFB50-\uFDFF\uFE70-\uFEFF]"),
    "Mong": re.compile("[\u1800-\u18AF]"),
    "Hani": re.compile("[\u3400-\u4DBF\u4E00-\u9FFF\uF900-\uFAFF]"),
    "Cyrl": re.compile("[\u0400-\u04FF]"),
    "Latn": re.compile("[A-Za-z\u00C0-\u024F]"),
}


def _cell(v) -> str | None:
    """A cell as text: None for missing/NaN/blank."""
    if v is None:
        return None
    if isinstance(v, float) and v != v:
        return None
    if isinstance(v, float) and v.is_integer():
        v = int(v)
    s = str(v)
    return s if s.strip() else None


def _parse_options_cell(v, path, line) -> list[str]:
    if hasattr(v, "tolist") and not isinstance(v, str):  # numpy array from Parquet
        v = v.tolist()
    if isinstance(v, str):
        s = v.strip()
        if not s:
            raise InputError("'options' is empty", path=path, line=line)
        try:
            v = json.loads(s)
        except json.JSONDecodeError:
            try:
                v = ast.literal_eval(s)
            except (ValueError, SyntaxError):
                raise InputError("'options' is not a list (expected e.g. [\"red\", \"blue\"])", path=path, line=line) from None
    if isinstance(v, tuple):
        v = list(v)
    if not isinstance(v, list):
        raise InputError(f"'options' must be a list, not {type(v).__name__}", path=path, line=line)
    out = []
    for i, item in enumerate(v):
        if isinstance(item, dict) and "text" in item:
            item = item["text"]
        if item is None or isinstance(item, (list, dict)):
            raise InputError(f"option {i + 1} is not text", path=path, line=line)
        out.append(str(item))
    return out


def _answer_label(raw: str | None, n: int) -> str | None:
    """Letter, Tibetan letter or 0-based index → Latin label; otherwise the raw
    answer (then flagged key_not_in_options)."""
    if raw is None:
        return None
    s = nfc(raw).strip()
    if s in TIBETAN_TO_LATIN:
        return TIBETAN_TO_LATIN[s]
    if len(s) == 1 and s.upper() in LATIN_LABELS:
        return s.upper()
    if s.isdigit() and s.isascii():
        i = int(s)
        return LATIN_LABELS[i] if i < n else s
    return s


def parse_question_rows(df, path, benchmark: str, seen: dict[str, int] | None = None) -> list[Question]:
    """Rows of a question table (from ``read_table``) → Questions.  Raises
    InputError naming the line for every malformed row.  *seen* (id → first
    line) carries the duplicate-id check across chunks of one file."""
    cols = [c for c in df.columns if c != "_line"]
    extra_letters = [c for c in cols if len(c) == 1 and c.isalpha() and c.isupper() and c not in OPTION_COLUMNS]
    if extra_letters:
        raise InputError(f"option column(s) {', '.join(extra_letters)}: at most {MAX_OPTIONS} options (A–F) per item",
                         path=path)
    require_columns(df, ["id", "question", "answer"], path, allowed=ALLOWED_COLUMNS)
    option_cols = [c for c in OPTION_COLUMNS if c in cols]
    if "options" in cols and option_cols:
        raise InputError(f"give the options either as one 'options' column or as columns A–F, not both "
                         f"(found options and {', '.join(option_cols)})", path=path)
    if "options" not in cols and not option_cols:
        raise InputError(f"missing the options: add columns A, B, … (up to F) or one 'options' list column "
                         f"(found: {', '.join(cols)})", path=path)
    questions: list[Question] = []
    first_line: dict[str, int] = seen if seen is not None else {}
    for rec in df.to_dict("records"):
        line = int(rec.pop("_line"))
        qid = _cell(rec.get("id"))
        if qid is None:
            raise InputError("empty id", path=path, line=line)
        qid = nfc(qid.strip())   # ids compare in NFC, like texts
        if qid in first_line:
            raise InputError(f"duplicate question id '{qid}' (first on line {first_line[qid]})", path=path, line=line)
        first_line[qid] = line
        raw_stem = _cell(rec.get("question"))
        if raw_stem is None:
            raise InputError(f"empty question text (id '{qid}')", path=path, line=line)
        if option_cols:
            cells = [_cell(rec.get(c)) for c in option_cols]
            while cells and cells[-1] is None:
                cells.pop()
            gaps = [option_cols[i] for i, c in enumerate(cells) if c is None]
            if gaps:
                raise InputError(f"option {gaps[0]} is empty but a later option is filled (id '{qid}')",
                                 path=path, line=line)
            texts = cells
        else:
            texts = _parse_options_cell(rec.get("options"), path, line)
        if len(texts) > MAX_OPTIONS:
            raise InputError(f"{len(texts)} options; an item has {MIN_OPTIONS}–{MAX_OPTIONS} (id '{qid}')",
                             path=path, line=line)
        if len(texts) < MIN_OPTIONS:
            raise InputError(f"{len(texts)} option(s); an item has {MIN_OPTIONS}–{MAX_OPTIONS} (id '{qid}')",
                             path=path, line=line)
        options = [Option(LATIN_LABELS[i], nfc(t).strip()) for i, t in enumerate(texts)]
        key = _answer_label(_cell(rec.get("answer")), len(options))
        language = _cell(rec.get("language"))
        language = language.strip() if language else None
        script = _cell(rec.get("script"))
        script = script.strip().capitalize() if script else script_of(
            raw_stem + " " + " ".join(texts), language)
        explanation = _cell(rec.get("explanation"))
        subject = _cell(rec.get("subject"))
        source = {k: _jsonable(v) for k, v in rec.items()}
        q = Question(
            benchmark=benchmark, question_id=qid, stem=nfc(raw_stem).strip(), options=options, answer_key=key,
            subject=nfc(subject).strip() if subject else None, language=language, script=script,
            explanation=nfc(explanation) if explanation else None, raw_text=raw_stem, source_record=source,
        )
        if raw_stem != unicodedata.normalize("NFC", raw_stem):
            q.flags.append("normalized_nfc")
        questions.append(q)
    return questions


def _jsonable(v):
    if hasattr(v, "tolist") and not isinstance(v, str):
        return v.tolist()
    if isinstance(v, float) and v != v:
        return None
    if isinstance(v, (str, int, float, bool, list, dict)) or v is None:
        return v
    return str(v)


def import_questions(path: str | os.PathLike, *, benchmark: str, db=None) -> QuestionImportSummary:
    """Import a question file into ``benchmark`` (created when new; questions
    with the same id are replaced).  All-or-nothing, in one transaction.

    >>> import tempfile, pathlib
    >>> d = pathlib.Path(tempfile.mkdtemp())
    >>> _ = (d / "q.csv").write_text("id,question,A,B,C,answer\\nq1,2+2?,3,4,5,B\\nq2,1+1?,2,3,4,G\\n")
    >>> s = import_questions(d / "q.csv", benchmark="toy", db=d / "x.duckdb")
    >>> (s.questions, s.key_not_in_options)
    (2, 1)
    """
    if not benchmark or not str(benchmark).strip():
        raise InputError("a benchmark name is required (--benchmark)")
    p = Path(path)
    chunks = iter_table(p)
    first = next(chunks)   # file-level problems (columns, encoding, empty) before the database is opened
    seen: dict[str, int] = {}
    n = key_not_in_options = flagged = 0
    scripts: dict[str, int] = {}
    with connect(db) as con, transaction(con):
        # A large CSV arrives in chunks (issue 14: a million questions in
        # bounded memory); all chunks go into one transaction.
        for df in itertools.chain([first], chunks):
            questions = parse_question_rows(df, p, benchmark, seen)
            store_questions(con, benchmark, "questions", questions, source_path=str(p))
            for q in questions:
                f = item_flags(q)
                key_not_in_options += "key_not_in_options" in f
                flagged += bool(f)
                scripts[q.script or "unknown"] = scripts.get(q.script or "unknown", 0) + 1
            n += len(questions)
            del questions, df
    return QuestionImportSummary(
        benchmark=benchmark, path=str(p), questions=n, key_not_in_options=key_not_in_options,
        flagged=flagged, scripts=scripts,
    )
