"""Method "final" (the default): the answer a careful grader reads.

The rules, in the order they are tried, are described in
:func:`final_answer`; Cyrillic option letters are read first
(:mod:`._cyrillic`).  Every rule is a regular expression or a scan that
costs linear time in the (bounded) text.
"""
from __future__ import annotations

import re
from collections.abc import Sequence

from audit.ingest.extract._cyrillic import cyrillic_letters
from audit.ingest.extract._filters import (
    FULLWIDTH,
    LATIN,
    LETTER_FOLLOWERS,
    check_n,
    norm_option,
    prepare,
    scan_letters,
    widen,
)
from audit.options import LATIN_LABELS, TIBETAN_TO_LATIN

__all__ = ["final_answer", "final_letter"]

# Apostrophe variants used in Uzbek Latin (oʻ gʻ) and elsewhere.
_AP = "[ʻ'‘’`ʼ]?"
_TOGRI = rf"(?<![Nn]o)[Tt]o{_AP}g{_AP}ri"
# Answer statements: a phrase, then (after punctuation, markup and copulas) the letter.
# Each alternative starts with a literal character (so the regex engine can
# skip ahead to those characters); the word-boundary and negation checks on
# the preceding text are done in Python on the few hits (``_phrase_ok``).
_SEP = r"[\s*_]+"


def _alts(heads: str, tail: str = "") -> str:
    """``head1tail|head2tail|…``: every alternative starts with a literal
    character, which lets the regex engine skip quickly to candidate
    positions (a leading group or class would defeat that)."""
    return "|".join(h + tail for h in heads.split())


_CASES = ("Correct correct Right right Best best Appropriate appropriate Fitting fitting Final final "
          "Accurate accurate")
_PHRASE = re.compile("|".join([
    # English
    _alts("Answer answer ANSWER"),
    _alts(_CASES, rf"{_SEP}(?:option|choice|letter|variant|spelling|translation|meaning|word|form|answer)(?![a-z])"),
    rf"I(?:{_SEP}would|'d|{_SEP}will)?{_SEP}(?:choose|select|pick|go{_SEP}with)(?![a-z])",
    # Uzbek Latin (also the misspelling "Javab"), Azerbaijani, Turkish, Turkmen
    _alts("Javob javob Javab javab", r"(?:i|im|imiz)?(?![a-z])"),
    _alts("To to", rf"{_AP}g{_AP}ri{_SEP}(?:yozilgan{_SEP}|variant{_SEP})?"
                   rf"(?:javob(?:i)?|variant(?:i)?|yozilish(?:i)?|so{_AP}z(?:i)?|shakl(?:i)?|ma{_AP}no(?:si)?)(?![a-z])"),
    _alts("Cavab cavab Cevap cevap Yanıt yanıt Jogap jogap", r"(?:ı|y)?(?![a-z])"),
    _alts("Doğru doğru Düzgün düzgün", rf"{_SEP}(?:cevap|seçenek|şık|cavab|variant)(?:ı)?(?![a-z])"),
    # Cyrillic: Kazakh, Kyrgyz, Russian, Uzbek, Mongolian, Tatar, Bashkir
    _alts("Жауап жауап Жауаб жауаб Жооп жооп Жообу жообу Жавоб жавоб Ответ ответ ОТВЕТ Хариулт хариулт Җавап җавап "
          "Җавабы җавабы Яуап яуап", r"(?:ы|у|и)?(?![А-Яа-яЁёӘәҒғҚқҢңӨөҰұҮүҺһІі])"),
    _alts("Дұрыс дұрыс Правильный правильный Верный верный",
          r"[\s*_]+(?:нұсқа|вариант|ответ)(?:сы|ы)?(?![А-Яа-яЁёӘәҒғҚқҢңӨөҰұҮүҺһІі])"),
    # Arabic script: Uyghur, Kazakh (Arabic), Persian, Arabic
    _alts("جاۋاب جاۋاپ جواب پاسخ الإجابة الاجابة", r"(?:ى|ي)?(?![\u0620-\u064A\u0671-\u06D3])"),
    "توغرا[\\s*_]+(?:تاللانما|تاللاش|تاللام)(?:ى|ي)?(?![\u0620-\u064A\u0671-\u06D3])",
    # Chinese
    _alts("正确答案 正確答案 最终答案 最終答案 答案 故选 故選 应选 應選 所以选 所以選 因此选 因此選 我选 我選 "
          "正确选项 正確選項 答 我认为 我認為 确定是 確定是"),
    _alts("选 選", "(?![项項择擇出定中])"),
    # Tibetan: ཡང་དག་པའི་ལན / ཡང་དག་པའི་གདམ་ག ("correct answer / option"), ལན ("answer")
    "ཡང་དག་པའི་(?:ལན|གདམ་ག|གདམ་ཁ)|ལན(?:་ཡང་དག་པ)?(?![\u0F40-\u0FBC])|དེས་ན(?![\u0F40-\u0FBC])|དེར་བརྟེན(?![\u0F40-\u0FBC])",
]))
# Rarer English statements, in their own pattern tried only when a cheap substring test finds
# their key word: starting with common letters (c, i, f, u, y), they would slow the scan of
# every response.
_PHRASE_RARE = re.compile("|".join([
    # "The correct spelling is "Cholgʻu", which corresponds to option D"
    _alts("corresponds corresponding", rf"{_SEP}to(?![a-z])"),
    # "The incorrect statement is **B**" answers "which statement is incorrect"
    _alts("incorrect false untrue", rf"{_SEP}(?:statement|one|claim|description)(?![a-z])"),
    # "The term you're looking for is B) …"
    _alts("you You", rf"(?:'re|’re|{_SEP}are){_SEP}looking{_SEP}for(?![a-z])"),
    # a revised answer: "To'g'rirog'i: C)" ("more exactly"), "更正：C" ("Correction: C" is a conclusion word)
    _alts("更正 改选 改選 改为 改為"),
    _alts("To to", rf"{_AP}g{_AP}rirog{_AP}i(?![a-z])"),
]))
_RARE_GATE = re.compile("orrespond|statement|claim|description|ncorrect one|alse one|ntrue one|looking for")
# (the revision words are found by substring tests: cheaper than more branches in _RARE_GATE)
# Decision, conclusion and revision words written in Cyrillic, tried only in a text with Cyrillic letters
# (more branches in _PHRASE would slow the scan of every response).
_PHRASE_CYR = re.compile("|".join([
    _alts("Шешім шешім Шешімі шешімі Чечим чечим Чечими чечими Шийдэл шийдэл Хариу хариу Дұрысы дұрысы "
          "Туурасы туурасы Түзету түзету Исправление исправление", r"(?:ы|у|и)?(?![А-Яа-яЁёӘәҒғҚқҢңӨөҰұҮүҺһІі])")]))
_ANY_CYRILLIC = re.compile("[\u0400-\u04FF]")
_OTHER_GATE = re.compile("[\u0400-\u04FF]|更正|改")


_LAST_HITS: tuple[str, list[re.Match[str]]] = ("", [])


def _phrase_hits(text: str) -> list[re.Match[str]]:
    """Every answer phrase in ``text``, in reading order (the list of the
    last text asked is kept: "final" asks twice for the same text; do not
    change the list)."""
    global _LAST_HITS
    last = _LAST_HITS
    if last[0] is text:
        return last[1]
    hits = list(_PHRASE.finditer(text))
    more = False
    other = None if text.isascii() else _OTHER_GATE.search(text)   # Cyrillic letters, or a Chinese revision
    if _RARE_GATE.search(text) or "rirog" in text or (other and ("更正" in text or "改" in text)):
        hits += _PHRASE_RARE.finditer(text)
        more = True
    if other and _ANY_CYRILLIC.search(text):
        cyr = list(_PHRASE_CYR.finditer(text))
        if cyr:
            hits += cyr
            more = True
    if more:
        hits.sort(key=lambda m: m.start())
    _LAST_HITS = (text, hits)
    return hits


_NOT_BEFORE = re.compile(r"(?<![A-Za-z])(?:wrong|incorrect|not\s+the|not|n't|an|[Nn]o|[Ii]n)[\s*_]*$")


def _phrase_ok(text: str, start: int) -> bool:
    """A phrase hit counts when it starts a word and is not negated
    ("wrong answer", "noto'g'ri javob", "incorrect option")."""
    if start == 0:
        return True
    prev = text[start - 1]
    if prev.isalpha() and not ("\u4e00" <= prev <= "\u9fff") and not ("\u0F00" <= prev <= "\u0FFF"):
        if prev in "oO" and text[start - 2:start].lower() == "no":
            return False
        return False
    return not (prev in " *_\t" and _NOT_BEFORE.search(text, max(0, start - 14), start))


_FILL = (
    r"(?:[\s:：\-—–=>→*_`\"'“”«»‘’()\[\]【】（）「」『』、$#|]|\\(?:text(?:bf)?|mathbf|mathrm|boxed)\{|"
    r"(?:is|was|would\s+be|will\s+be|should\s+be|must\s+be|therefore|thus|hence|clearly|definitely|the|option|"
    r"choice|letter|variant(?:i)?|bu|esa|hisoblanadi|bo'ladi|–|ni|"
    r"вариант|нұсқа|бул|это|мынау|بولسا|بولىدۇ|ھەرىپ)(?![A-Za-z\u0400-\u04FF\u0620-\u06D3])|"
    r"是|为|為|选|選|项|項|應該是|应该是|ནི|་|།|ཡིན|རེད)*?"
)
_WORD_CH = "A-Za-z0-9À-ɏЀ-ӿＡ-Ｚａ-ｚ"
# Words after "A" that show it is an option letter in other languages ("A varianti", "A va D").
_FOLLOWERS_MORE = (r"variant\w*|javob\w*|harf\w*|option\w*|va|yoki|ham|esa|bu|xato|emas|noto\S*|to\S*g\S*ri\w*|"
                   r"da|ga|dan|ni|jav\w*")
_ARTICLE = rf"(?!(?<=A)[ \t]+(?!(?:{LETTER_FOLLOWERS}|{_FOLLOWERS_MORE})\b)[a-z])"
_LATIN_FINAL = re.compile(LATIN.pattern.replace(f"(?:{LETTER_FOLLOWERS})", f"(?:{LETTER_FOLLOWERS}|{_FOLLOWERS_MORE})"))


def _latin(raw: str) -> str:
    """The Latin label of a matched label (full-width, circled or Tibetan; Cyrillic letters are rewritten
    to Latin ones before any rule runs, see :func:`cyrillic_letters`)."""
    return TIBETAN_TO_LATIN.get(raw) or FULLWIDTH.get(raw, raw)
_AFTER = re.compile(
    _FILL + rf"(?:(?P<l>[A-FＡ-ＦⒶ-Ⓕ])(?![{_WORD_CH}])(?!-[A-Za-z])(?!\.\s?[A-Z]\.){_ARTICLE}"
    r"|(?P<t>[ཀཁགང])(?![\u0F40-\u0FBC])(?=་|།|\s|$|[)）\].,*_（(]))"
)
_MORE = re.compile(
    r"(?:\*\*|\))?(?:\s*[（(][^()（）\n]{0,30}[)）])?\s*(?:,|、|/|&|\+|\band\b|\bor\b|\bva\b|\byoki\b|\bhamda\b|和|或|与|及|\bи\b|\bили\b|\bжәне\b|"
    r"\bнемесе\b|\bva\b|ۋە|ياكى|(?:་?ཡིན་ནམ་?)?ཡང་ན་?|དང་)\s*(?:\*\*)?\(?(?:option\s+|variant\s+)?([A-FＡ-Ｆ])(?![A-Za-z0-9])"
)
# "B) text and D) text": a second option named with its text after the first.
_MORE_TEXT = re.compile(
    r"(?:\*\*)?\)[^\n.;。]{0,80}?(?:\s|\*\*)(?:and|or|va|yoki|hamda|и|или|және|немесе|ۋە|ياكى|和|或|及)\s+"
    r"(?:\*\*)?\(?([A-FＡ-Ｆ])(?:\)|\*\*)")
# An option line marked as the chosen one with a check mark.
_CHECKED = re.compile(r"^[ \t>*_\-•]*(?:(?:\*\*)?[(\[]?([A-FＡ-Ｆ])(?:[)\].:]|\*\*)[^\n]*[✅✔☑]"
                      r"|[✅✔☑][ \t]*(?:\*\*)?[ \t]*[(\[]?([A-FＡ-Ｆ])(?:[)\].:]|\*\*))", re.M)
# Option lines with a verdict after the option text ("- **A) Linoleum** – to'g'ri variant",
# "B) … — incorrect"): the verdict part follows a dash or colon.
_VERDICT_LINE = re.compile(
    r"^[ \t>*_\-•]*(?:\*\*)?[(\[]?([A-FＡ-Ｆ])(?:[)\].:]|\*\*)[^\n]*?(?:\s[–—-]\s|:\s|\s(?=[✓✔✅]))([^\n]*)$",
    re.M)
# (every alternative starts with a literal character, the context checks follow it: see _PHRASE)
_POSITIVE = re.compile("|".join(
    [f"{c}(?<![Nn]o.)(?<![Nn]o .)o{_AP}g{_AP}ri(?!\\s*(?:emas|yozilmagan|kelmaydi))" for c in "Tt"]
    + [f"{c}(?<![Ii]n.)(?<!not .)orrect(?!ness)" for c in "Cc"]
    + ["✓", "✔", "✅", "正确", "正確", "дұрыс(?!\\s*емес)", "توغرا(?!\\s*ئەمەس)"]
    + [f"{c}(?<![Нн]е.)равильн" for c in "Пп"] + [f"{c}(?<![Нн]е.)ерн(?:о|ый|ая)" for c in "Вв"]
    + ["ཡང་དག(?!་(?:མ་རེད|མིན|མ་ཡིན))"]
    + [f"{c}ato\\w*\\s+yo{_AP}q" for c in "Xx"]))   # "xatolari yo'q": no errors
# (every alternative starts with a literal character: the engine then skips quickly to candidates)
_NEGATIVE = re.compile(r"Noto|noto|Xato|xato|emas|kelmaydi|yozilmagan|Incorrect|incorrect|Wrong|wrong|"
                       r"not(?<![A-Za-z0-9_]not)(?![A-Za-z0-9_])|n't(?![A-Za-z0-9_])|"
                       r"❌|✗|✘|错|錯|不|қате|емес|Неправильн|неправильн|Неверн|неверн|Ошибочн|ошибочн|"
                       r"خاتا|ئەمەس|ནོར|མ་རེད|མིན|མ་ཡིན")
_NEGATED = re.compile(
    r"\W{0,4}(?:\s*(?:option|variant(?:i)?|javob(?:i)?))?\s*(?:is\s+(?:not|incorrect|wrong)|isn't|emas|noto|xato|"
    r"错|錯|不正确|不正確|不对|不是|дұрыс\s+емес|емес|неверн|неправильн|خاتا|ئەمەس)"
)
_POSTFIX = re.compile(
    rf"(?P<l>[A-FＡ-Ｆ])(?<![{_WORD_CH}][A-FＡ-Ｆ])(?<![A-Za-z]-[A-FＡ-Ｆ])(?![{_WORD_CH}])\*{{0,2}}\s*(?:varianti?|javob(?:i)?|option|choice)?\s*"
    rf"(?:is\s+(?:the\s+)?(?:correct|right|best)(?!\s+only)|(?<!-){_TOGRI}(?!\s*(?:emas|yozilmagan))(?=[\s.,!*]|$)|"
    r"[ \t'’-]?(?:نى|ни|ны|ні|ni|nı|yi|ı|i)[ \t]+(?:تاللايمەن|تاللىدىم|таңдаймын|таңдадым|выбираю|tanlayman|tanladim|"
    r"seçiyorum|seçerim|seçtim|tallaymen)|"
    r"是正确|是正確|正确|正確|是对的|是對的|(?:对|對)(?=[。，,.；;！!]|$)|дұрыс(?!\s*емес)|توغرا(?!\s*ئەمەس))"
)
# "The correct translation of "…" in English is (C)": the phrase, a few words
# of the same sentence, then "is" and a letter in parentheses or before ")".
_LATE = re.compile(r"[^\n.!?:;]{1,80}?\bis\s+(?:\*\*)?\(?(?P<l>[A-F])\)")
# "不正确的是 **B**。", "最确切的说法是 D。": the answer to "which of these …" at the end of a sentence;
# Tibetan "…ནི་ **ཁ** ཡིན།" likewise.
_CLOSING = re.compile(
    r"(?:的|说法|說法|选项|選項|答案)[ \t]*(?:是|为|為)[ \t]*(?:\*\*)?[ \t]*"
    r"[（(]?(?P<l>[A-FＡ-Ｆ])[）)]?[ \t]*(?:\*\*)?[ \t]*"
    r"(?:[（(][^()（）\n]{0,40}[)）])?[ \t]*(?:\*\*)?[ \t]*(?:[。.！!]|$)"
    r"|ནི་?[ \t]*(?:\*\*)?[ \t]*(?:(?P<t>[ཀཁགང])|(?P<l2>[A-F]))(?![\u0F40-\u0FBC])[ \t]*(?:\*\*)?[ \t]*་?[ \t]*"
    r"(?:[（(][^()（）\n]{0,40}[)）])?[ \t]*(?:ཡིན|རེད)[ \t]*[།༎]?[ \t]*$",
    re.M,
)
# after a negated letter: "жауап C емес, B", "the answer is not A but C", "答案不是A，而是C"
_INSTEAD = re.compile(
    r"[\s,，、;；]*(?:(?:but|rather|instead|а|бірақ|而是|بەلكى|ئەمما)[\s:：]*(?:\*\*)?\(?([A-FＡ-Ｆ])\)?(?:\*\*)?"
    r"(?=[\s.。!！,，;；]|$)|(?:\*\*)?\(?([A-FＡ-Ｆ])\)?(?:\*\*)?[ \t]*(?=[.。!！]|$))")
# A conclusion word and only a letter: "دېمەك B.", "يەكۈن: A", "Сондықтан B.", "Therefore, C."
_CONCLUDING = (
    "شۇڭا دېمەك يەكۈن خۇلاسە نەتىجە يەنى Сондықтан сондықтан Демек демек Қорытынды қорытынды Яғни яғни Итак итак "
    "Следовательно следовательно Вывод вывод Therefore therefore Thus thus Hence hence Demak demak Xulosa "
    "xulosa Shuning shuning "
    # conclusion and decision words in Kazakh, Kyrgyz, Mongolian, Russian, Uzbek, Azerbaijani, Turkish
    "Шешім шешім Шешімі шешімі Чечим чечим Жыйынтык жыйынтык Ошентип ошентип Дүгнэлт дүгнэлт Шийдэл "
    "шийдэл Иймээс иймээс Итог итог Итого итого Натижа натижа Natija natija Nəticə nəticə Sonuç sonuç "
    # a revision: "Actually, C.", "Дұрысы — С."
    "Actually actually Correction correction Tuzatish tuzatish Aslida aslida Точнее точнее Вернее вернее "
    "Дұрысы дұрысы Туурасы туурасы"
)
_LETTER_END = re.compile(r"(?P<l>[A-FＡ-Ｆ])(?<![A-Za-z0-9].)[)\]]?(?:\*\*)?[ \t]*(?=[.。!！]|$)", re.M)
_CONCLUSION = re.compile(
    "(?:"
    + "|".join(_CONCLUDING.split())
    + r")(?:[ \t]+uchun)?[ \t,،:：\-—]*(?:\*\*)?[ \t]*[(\[]?(?P<l>[A-FＡ-Ｆ])[)\]]?"
    r"(?:\*\*)?[ \t]*(?=[.。!！]|$)",
    re.M,
)
_BOXED = re.compile(r"\\boxed\{\s*(?:\\text(?:bf)?\{)?\s*\(?([A-FＡ-Ｆ])\)?\s*\}?\s*\}")
# A line that is only an option marker (optionally followed by the option text).
_OPTION_LINE = re.compile(
    r"[ \t>#*_\-•]*(?:\*\*|__)?[ \t]*[(\[【（]?(?P<l>[A-FＡ-Ｆ])(?:[)\]】）.:：]|\*\*|__|[ \t]*$)(?P<rest>[^\n]*)")


_TRAILING = " \t\r\n.。*_)）】」』!！:：;；`\"'”’"


def _commitments(text: str, valid: tuple[str, ...]) -> tuple[int, str | None] | None:
    """The last answer statement in ``text``: (position, letter or None when it
    names several letters or a letter that is not an option); None when there
    is no statement."""
    P = _pats(valid)
    best: tuple[int, str | None] | None = None
    best_end = 0
    for m in _phrase_hits(text):
        if not _phrase_ok(text, m.start()):
            continue
        end = m.end()
        a = P.AFTER.match(text, end, end + 48) or P.LATE.match(text, end, end + 120)
        if not a:
            continue
        head = a.group()
        nl = head.find("\n")
        if nl >= 0 and ":" not in head[:nl] and "：" not in head[:nl]:
            continue  # the phrase ends a line ("B) … — correct answer"); the letter is on the next one
        letter = a.group("l")
        if letter is not None:
            letter = FULLWIDTH.get(letter, letter)
        else:
            letter = TIBETAN_TO_LATIN[a.group("t")]
        pos = a.end()
        neg = _NEGATED.match(text, pos, pos + 40)
        if neg:
            instead = P.INSTEAD.match(text, neg.end(), neg.end() + 30)
            if instead:
                raw = instead.group(1) or instead.group(2)
                other = FULLWIDTH.get(raw, raw)
                best = (m.start(), other if other in valid else None)
            continue
        more = P.MORE.match(text, pos, pos + 40) or P.MORE_TEXT.match(text, pos, pos + 160)
        if more and FULLWIDTH.get(more.group(1), more.group(1)) != letter:
            best = (m.start(), None)
            continue
        best = (m.start(), letter if letter in valid else None)
        best_end = pos
    if best is not None and best[1] is not None and not text[best_end:].strip(_TRAILING):
        return best   # the statement ends the response: nothing can come after it
    after = best[0] + 1 if best else 0    # only a later statement can win
    closing = P.CLOSING.finditer(text, after) if ("是" in text or "为" in text or "為" in text or "ཡིན" in text
                                                or "རེད" in text) else ()
    for e in P.LETTER_END.finditer(text, after):   # few candidates: then look back for a conclusion word
        m = P.CONCLUSION.search(text, max(0, e.start() - 40), e.end())
        if m and m.end("l") == e.end("l") and (best is None or m.start() > best[0]):
            letter = FULLWIDTH.get(m.group("l"), m.group("l"))
            best = (m.start(), letter if letter in valid else None)
    for m in closing:
        if best is None or m.start() > best[0]:
            letter = _latin(m.group("l") or m.group("l2") or m.group("t"))
            best = (m.start(), letter if letter in valid else None)
    if "oxed" in text:
        for m in P.BOXED.finditer(text):
            if best is None or m.start() > best[0]:
                letter = FULLWIDTH.get(m.group(1), m.group(1))
                best = (m.start(), letter if letter in valid else None)
    if "✅" in text or "✔" in text or "☑" in text:
        checked = {FULLWIDTH.get(m.group(1) or m.group(2), m.group(1) or m.group(2)): m.start()
                   for m in P.CHECKED.finditer(text)}
        if len(checked) == 1:
            (letter, start), = checked.items()
            if letter in valid and (best is None or start > best[0]):
                best = (start, letter)
    for m in P.POSTFIX.finditer(text, best[0] + 1 if best else 0):
        if best is None or m.start() > best[0]:
            letter = FULLWIDTH.get(m.group("l"), m.group("l"))
            if letter in valid:
                best = (m.start(), letter)
    return best


def _verdict_lines(text: str, valid: tuple[str, ...], options: Sequence[str] | None = None) -> str | None:
    """The one option whose line gives it a positive verdict ("A) … – to'g'ri",
    "C) … ✓") — a positive word at the start of the part after the dash or
    colon, no negative word in it — when exactly one option gets one (and
    none of its lines a negative one)."""
    P = _pats(valid)
    pos: set[str] = set()
    neg: set[str] = set()
    if options:
        # "- **A) text**\n  Bu variantda … to'g'ri yozilgan": the verdict on the line after the option's text
        lines = text.split("\n")
        for before, ln, nxt in zip([""] + lines, lines, lines[1:]):   # the very next line, not after a blank one
            m = P.OPTION_LINE.fullmatch(ln)
            if not m or not nxt.strip() or P.OPTION_LINE.fullmatch(nxt) or P.OPTION_LINE.fullmatch(before):
                continue  # (an option in a list of options is no header)
            letter = FULLWIDTH.get(m.group("l"), m.group("l"))
            idx = LATIN_LABELS.index(letter)
            if idx >= len(options) or norm_option(m.group("rest")) != norm_option(options[idx]):
                continue
            if _NEGATIVE.search(nxt):
                neg.add(letter)
            elif (hit := _POSITIVE.search(nxt)) and hit.end() <= 40:
                pos.add(letter)
    for m in P.VERDICT_LINE.finditer(text):
        letter = FULLWIDTH.get(m.group(1), m.group(1))
        verdict = m.group(2)
        if options and LATIN_LABELS.index(letter) < len(options):
            own = norm_option(options[LATIN_LABELS.index(letter)])
            if own and norm_option(verdict) in own:
                continue  # the option's own text ("C) Ikkovi ham to'g'ri"), not a verdict
        if _NEGATIVE.search(verdict):
            neg.add(letter)
        elif (hit := _POSITIVE.search(verdict)) and hit.end() <= 30:  # a verdict, not a word deep in an explanation
            pos.add(letter)
    if len(pos) == 1:
        (letter,) = pos
        if letter in valid and letter not in neg:
            return letter
    return None


def _first_line_option(text: str, valid: tuple[str, ...], options: Sequence[str] | None = None) -> str | None:
    """The letter of a first line that is only an option ("C", "**C) text**"),
    unless the next line is another option (the model is listing options;
    when the option texts are known, only a next line giving its option's
    text counts as a list)."""
    P = _pats(valid)
    lines = [ln for ln in text.strip().split("\n", 3)[:3] if ln.strip()]
    if not lines:
        return None
    m = P.OPTION_LINE.match(lines[0])
    if not m:
        return None
    letter = FULLWIDTH.get(m.group("l"), m.group("l"))
    if letter not in valid or (letter == "A" and _is_review(text, P)):
        return None
    if letter == "A" and re.match(r"[ \t]+[a-z]", m.group("rest")) and not m.group(0).lstrip(" *_#>(").startswith("A)"):
        return None  # the article: "A cell wall is …"
    if P.MORE_TEXT.match(lines[0], m.end("l")) or P.MORE.match(lines[0], m.end("l")):
        return None  # "A) … and B) …": two options
    if len(lines) > 1:
        nxt = P.OPTION_LINE.match(lines[1])
        if nxt and nxt.group("l") != m.group("l"):
            other = LATIN_LABELS.index(FULLWIDTH.get(nxt.group("l"), nxt.group("l")))
            if (
                not options
                or other >= len(options)
                or other == LATIN_LABELS.index(letter) + 1
                or norm_option(nxt.group("rest")).startswith(norm_option(options[other])[:12])
            ):
                return None
    return letter


_LAST_LINE = re.compile(
    r"[ \t>#*_\-•]*(?:\*\*|__)?[ \t]*[(\[【（]?(?P<l>[A-FＡ-Ｆ]|[ཀཁགང])(?![\u0F40-\u0FBC])"
    r"(?:[)\]】）.:：།་]|\*\*|__|[ \t]+|$)(?P<rest>[^\n]*)")


_BULLET = re.compile(r"[ \t>]*(?:[-*•+]|\d+[.)])[ \t]")
_OPTION_HEAD = re.compile(
    r"[ \t>#*_\-•]*(?:\*\*)?[(\[【（]?(?P<l>[A-FＡ-Ｆ]|[ཀཁགང])(?![\u0F40-\u0FBC])(?:[)\]】）.:：།་\s]|\*\*|$)"
)


def _last_line_option(text: str, valid: tuple[str, ...], options: Sequence[str] | None = None) -> str | None:
    """The letter of a last line that is only an option ("D", "ཀ",
    "C.發明印刷術", "**C) 6**") after a line that is not another option's
    (an echo of the options ends with one): the answer written last, as the
    first-line form is the answer written first."""
    P = _pats(valid)
    lines = [ln for ln in text.rstrip().rsplit("\n", 4)[-4:] if ln.strip()]
    if len(lines) < 2 or _BULLET.match(lines[-1]):
        return None   # a list item: the start of a list of options (perhaps cut off), not a conclusion
    m = P.LAST_LINE.fullmatch(lines[-1].strip())
    if not m:
        return None
    raw = m.group("l")
    letter = _latin(raw)
    if letter not in valid:
        return None
    rest = norm_option(m.group("rest"))
    idx = LATIN_LABELS.index(letter)
    if rest:
        if options is None or idx >= len(options) or rest != norm_option(options[idx]):
            return None   # a discussion of the option, or a text that is not its own
    prev = P.OPTION_HEAD.match(lines[-2])
    if prev:
        if _latin(prev.group("l")) != letter:
            return None
    # the next header of an option-by-option review ("**A) …**", text, "**B) …**", text, "**C"): cut off
    heads = [h.group("l") for h in (P.OPTION_HEAD.match(ln) for ln in text.rstrip().split("\n")[:-1]) if h]
    if heads and idx > 0:
        last_head = heads[-1]
        if _latin(last_head) == LATIN_LABELS[idx - 1]:
            return None
    return letter


_OTHERS = re.compile(r"(?i)\b(?:boshqa\w*|qolgan\w*|others?|remaining|rest\s+of)\b|остальн|друг(?:ие|их)")
_MARKUP = re.compile(r"[\s*_#>`]+")


def _introduced(text: str, valid: tuple[str, ...], options: Sequence[str] | None = None) -> tuple[int, str] | None:
    """The last option line introduced by a line ending in a colon
    ("the correct answer is indeed:\n\n**D) Ikkovi ham xato**",
    "To'g'ri joylashish:\n**D) …**"): a line that is only an option (its
    text when the texts are known, nothing negative after it), with no line
    of another option after it (that would be a list of the options)."""
    P = _pats(valid)
    if ":" not in text and "：" not in text:
        return None
    lines = text.split("\n")
    starts = [0]
    for ln in lines[:-1]:
        starts.append(starts[-1] + len(ln) + 1)
    opt_lines: list[tuple[int, str, str]] = []   # (line index, letter, rest)
    for i, ln in enumerate(lines):
        m = P.OPTION_LINE.fullmatch(ln)
        if m:
            opt_lines.append((i, FULLWIDTH.get(m.group("l"), m.group("l")), m.group("rest")))
    found: tuple[int, str] | None = None
    for k, (i, letter, rest) in enumerate(opt_lines):
        if letter not in valid or any(l2 != letter for _, l2, _ in opt_lines[k + 1:]):
            continue
        if lines[i].lstrip(" \t>").startswith(("-", "•", "* ")):
            continue  # a list item: the first of a list (perhaps cut off), not a conclusion
        prev = next((lines[j] for j in range(i - 1, -1, -1) if lines[j].strip()), "")
        prev = _MARKUP.sub(" ", prev).strip()
        if not prev.endswith((":", "：")):
            continue
        clause = re.split(r"[.!?。]\s", prev)[-1]
        if (_NEGATIVE.search(clause) and not _POSITIVE.search(clause)) or _OTHERS.search(clause) \
                or P.OPTION_LINE.fullmatch(lines[i - 1]):
            continue  # "Boshqa variantlar noto'g'ri:", "Other options:" introduce the rejected ones
        if options is not None:
            tail = norm_option(rest)
            idx = LATIN_LABELS.index(letter)
            own = norm_option(options[idx]) if idx < len(options) else ""
            if own and not (tail == own or tail.startswith(own + " ")):
                continue
            at = rest.casefold().find(options[idx].strip().casefold()) if own else -1
            tail = rest[at + len(options[idx].strip()):] if at >= 0 else ""
            # only the option (and perhaps a gloss in parentheses), not the start of a discussion
            if not _GLOSS.fullmatch(tail) or _NEGATIVE.search(tail):
                continue
        elif len(rest) > 80 or _SEPARATED.search(rest):
            continue  # texts unknown: a short line without a verdict after a dash or colon
        found = (starts[i], letter)
    return found


_SEPARATED = re.compile(r"\s[–—-]\s|:\s|[✓✔✅❌✗✘]")
_GLOSS = re.compile(r"[\s*_.,;:!\"'“”«»]*(?:\([^()\n]*\)[\s*_.,;:!]*)?")
_TEXT_VERDICT = re.compile(
    rf"[ \t]*(?:\*\*)?[ \t]*(?:(?!(?:noto|xato|not|in|ham|also|too)(?![A-Za-z]))[A-Za-z]+[ \t]+)?"
    rf"(?:{_TOGRI}(?![A-Za-z])(?!\s*(?:emas|yozilmagan|kelmaydi))|hisoblanadi|is\s+(?:the\s+)?correct|"
    r"seems\s+to\s+be\s+the\s+(?:most|best|correct|right))")
_SENTENCE_START = re.compile(r"[.!?。\n]\s")
_MARKER = re.compile(r"(?<![A-Za-z0-9])\(?([A-F])\)[ \t]*(?:\*\*)?[ \t]*")


def _text_verdict(text: str, valid: tuple[str, ...], options: Sequence[str]) -> tuple[int, str] | None:
    """The last option named with its full text and followed by a verdict
    ("ma'nosi **C) Kommunist** hisoblanadi", "variantlarning **D) Choydish**
    birida to'g'ri ko'rsatilgan", "option B) … seems to be the most …")."""
    P = _pats(valid)
    found: tuple[int, str] | None = None
    for m in P.MARKER.finditer(text):
        letter = m.group(1)
        sentence = _SENTENCE_START.split(text[max(0, m.start() - 200):m.start()])[-1]
        if any(o.group(1) != letter for o in P.MARKER.finditer(sentence)):
            continue  # "B) Ovlaq va D) Ovloq hisoblanadi", "neither A) … nor B) … is correct": several options
        idx = LATIN_LABELS.index(letter)
        if letter not in valid or idx >= len(options) or not options[idx].strip():
            continue
        own = options[idx].strip()
        if text[m.end():m.end() + len(own)].casefold() != own.casefold():
            continue
        v = _TEXT_VERDICT.match(text, m.end() + len(own))
        if v and not _NEGATIVE.search(_SENTENCE_START.split(text[v.end():v.end() + 80], 1)[0]):
            found = (m.start(), letter)   # (not "B) … to'g'ri yozishga oid emas")
    return found


_RANGE = re.compile(r"(?<![A-Za-z])[A-F][ \t]*[–—-][ \t]*[A-F](?![A-Za-z])")
_DISCUSSED = re.compile(
    r"^[ \t]*(?:(?:[-*•]|\d+[.)])?[ \t]*(?:\*\*)?(?:[Oo]ption[ \t]+)?\(?([A-F]|[ཀཁགང])\)?(?:\*\*)?[ \t]*[:.]"
    r"|[-*•][ \t]*(?:\*\*)?\(?([A-F]|[ཀཁགང])(?![\u0F40-\u0FBC])\)?(?:\*\*)?[ \t])",
    re.M,
)


_GLUED = re.compile(r"[A-Za-z0-9_]=[ \t]?$")   # "test=B", "x=A": a token of code or noise, not a choice
_CLAUSE_END = re.compile(r"[.!?。\n;；]")


def _rejected_each_time(text: str, ends: list[int], letter: str, options: Sequence[str] | None) -> bool:
    """Whether each mention of ``letter`` (ending at ``ends``) is followed in
    its clause by a rejection ("A) … – ❌", "A varianti noto'g'ri"); the
    option's own text ("Ikkovi ham xato") and "the others are wrong" are no
    rejection of it."""
    idx = LATIN_LABELS.index(letter)
    own = options[idx].strip().casefold() if options and idx < len(options) else ""
    if own and _NEGATIVE.search(own):
        return False   # an option that is itself a rejection is named with negative words

    def rejected(end: int) -> bool:
        stop = _CLAUSE_END.search(text, end + 1)
        clause = text[end:stop.start() if stop else len(text)][:160]
        if own:
            clause = clause.casefold().replace(own, " ")
        if not _NEGATIVE.search(clause):
            return False
        others = _OTHERS.search(clause)   # "A) …, boshqalari noto'g'ri": the others are rejected
        if others:
            clause = clause[:others.start()]
        return bool(_NEGATIVE.search(clause)) and not _POSITIVE.search(clause)

    return all(rejected(end) for end in ends)


_ENDED = re.compile(r"[.!?。！？།༎)\]】）*»”\"'`]\s*$")


def _last_paragraph(text: str, valid: tuple[str, ...], options: Sequence[str] | None = None) -> str | None:
    """The one option letter named in the last paragraph (after the last
    blank line: "因此……的是——\n\n**D 骨折**", "نەتىجە: **B — كاربون**",
    "Қорытынды: … яғни A нұсқасы."), when no other letter is named there, its
    mention is not an item of a list (an option-by-option review, perhaps cut
    off) and is not rejected in its clause."""
    P = _pats(valid)
    para = text.rstrip()
    cut = para.rfind("\n\n")
    para = para[cut + 2:] if cut >= 0 else para
    if not para.strip() or cut < 0:
        return None   # a one-paragraph response: the whole-response rules decide
    found = [m for m in P.LATIN_FINAL.finditer(para) if FULLWIDTH.get(m.group(1), m.group(1)) in valid
             and not ("=" in para and _GLUED.search(para, max(0, m.start() - 3), m.start()))]
    if found:
        letters = {FULLWIDTH.get(m.group(1), m.group(1)) for m in found}
    else:
        letters = set(scan_letters(para, valid, P.LATIN_FINAL))
    if len(letters) != 1:
        return None
    (letter,) = letters
    lines = para.split("\n")
    if P.OPTION_HEAD.match(lines[0]) or any(_BULLET.match(ln) for ln in lines):
        return None   # an option's paragraph in a review of the options (perhaps cut off), or a list
    if found and _rejected_each_time(para, [m.end() for m in found], letter, options):
        return None
    if not _ENDED.search(para):
        # perhaps cut off mid-sentence: only a mention that calls the option right, or that ends the
        # paragraph (with nothing after it but markup or the option's own text: "نەتىجە: C", "C. Ампер") counts
        idx = LATIN_LABELS.index(letter)
        own = norm_option(options[idx]) if options and idx < len(options) else ""
        if not any(_POSITIVE.search(para, m.start(), m.end() + 80) for m in found) and not (
                found and norm_option(para[found[-1].end():]) in ("", own)):
            return None
    return letter


def _only_letter(text: str, valid: tuple[str, ...], options: Sequence[str] | None = None) -> str | None:
    """Exactly one distinct option letter in the whole response, but not when
    its only uses head list items that discuss the options ("- A: … This
    could be", "- Option A: …": a response cut off or listing options, not
    choosing), are glued to a word by "=" (noise or code, "test=B"), or are
    each followed in their clause by a rejection ("A) … – ❌", "A varianti
    noto'g'ri"; the option's own text, such as "Ikkovi ham xato", is no
    rejection): the response rejects the one option it names."""
    P = _pats(valid)
    found = [m for m in P.LATIN_FINAL.finditer(text) if FULLWIDTH.get(m.group(1), m.group(1)) in valid]
    letters = (
        [FULLWIDTH.get(m.group(1), m.group(1)) for m in found] if found else scan_letters(text, valid, P.LATIN_FINAL)
    )
    if not letters or len(set(letters)) != 1:
        return None
    heads = [m.group(1) or m.group(2) for m in P.DISCUSSED.finditer(text)]
    if heads and len(heads) >= len(letters):
        return None
    letter = letters[0]
    if not found:
        return letter   # a Tibetan letter
    glued = "=" in text
    spans = [m.end() for m in found if not (glued and _GLUED.search(text, max(0, m.start() - 3), m.start()))]
    if not spans:
        return None
    if _rejected_each_time(text, spans, letter, options):
        return None
    return letter


_STATED_END = re.compile("(?:是|为|為|：|:|\\bis|\\bare|(?:^|\\s)(?:" + "|".join(_CONCLUDING.split()) + "))"
                         r"[\s*_\"“«'‘,،]*$")
_LEAD = re.compile(r"(?:[\s:：\-—–=*_]|\b(?:is|would\s+be|bu|esa)\b)*")
_QUOTED = re.compile(r"[\"“«„'‘]([^\"”»“'’\n]{1,200})[\"”»“'’]")


def _by_text(text: str, options: Sequence[str]) -> str | None:
    """The option whose text the response gives as its answer: the whole
    response, or what follows the last answer phrase (quoted, or up to the end
    of its line), equals one option's text."""
    P = _pats_n(len(options))
    cands = []
    for m in _phrase_hits(text):
        if not _phrase_ok(text, m.start()):
            continue
        rest = text[m.end(): m.end() + 300]
        lead = _LEAD.match(rest)
        rest = rest[lead.end():] if lead else rest
        q = _QUOTED.match(rest)
        cands.append(q.group(1) if q else rest.split("\n", 1)[0])
    norm = [norm_option(o) for o in options]
    last = text.rstrip().rsplit("\n", 1)[-1].strip().rstrip("。.!！*_ ").casefold()
    if _BULLET.match(last) or P.OPTION_HEAD.match(last) or re.search(r"\b[a-f]\b|\boption\b", last):
        last = ""   # a list item or a line about an option: a discussion, not the conclusion
    ends = [i for i, o in enumerate(options) if len(norm[i]) >= 4 and last
            and last.endswith(o.strip().casefold().rstrip("。.!！"))
            and _STATED_END.search(last[:len(last) - len(o.strip().casefold().rstrip("。.!！"))])]
    if len(ends) == 1:
        return LATIN_LABELS[ends[0]]
    whole = norm_option(text)
    hits = [i for i, o in enumerate(norm) if o and whole == o]
    if len(hits) == 1:
        return LATIN_LABELS[hits[0]]
    for c in reversed(cands):
        c = norm_option(c)
        if not c:
            continue
        hits = [i for i, o in enumerate(norm) if o and (c == o or c.startswith(o + " ") and
                                                         not any(o2 != o and c.startswith(o2) for o2 in norm))]
        if len(hits) == 1:
            return LATIN_LABELS[hits[0]]
    return None


def final_answer(response: str | None, n_options: int = 4, options: Sequence[str] | None = None) -> str | None:
    """The answer a careful grader reads in ``response`` (method "final").

    After the reasoning filter and the exclude list (as for CAA/DA, plus
    Chinese compounds such as B型肝炎 / B細胞 / 维生素C and initials such as
    "J. B. Watson", "R.O.C."), on a bounded text (in a text over 1,000
    characters whitespace runs longer than 16 cut to one; of a text longer
    than 20,000 characters its
    first 4,000 and last 16,000: every rule then costs a bounded time), with
    **Cyrillic option letters** read as the Latin ones they stand for
    (``А) 323``, ``Б) Н. Бор``, ``Д) Ауа тамыр.``; an ambiguous В, Д or Е
    decided by the option text after it, see :func:`cyrillic_letters`):

    1. **Answer statements** — an answer phrase followed (after punctuation,
       markup and copulas) by a letter: ``Answer: C``, ``The correct answer
       is **(C)**``, ``答案：C``, ``Javob: C``, ``To'g'ri javob — C)``,
       ``جاۋاب: C``, ``Жауап: C``, ``Düzgün cavab: C``, ``ལན་ནི་ག་རེད``,
       ``\\boxed{C}``, ``Жауабы: В`` (a Cyrillic look-alike), ``选 Ⓑ``,
       ``… corresponds to option D``; a letter followed by a verdict (``C is
       correct``, ``C varianti to'g'ri``, ``C 是正确的``, ``B 对。``, ``B نى
       تاللايمەن``); a closing statement (``不正确的是 **B**。``, ``…ནི་ ཁ
       ཡིན།``); a conclusion word and only a letter (``دېمەك B.``, ``Therefore,
       C.``); "not C but B" (``жауап C емес, B``); a single option line
       marked ✅.  The **last** statement wins, so letters met while discussing or
       rejecting options ("A) … — noto'g'ri") do not count, nor do negated
       phrases ("wrong answer", "noto'g'ri javob").  A statement naming two
       letters ("Answer: A or C", "B) … va D) …") or a letter that is not an
       option gives no answer.  Only when there is no statement, two weaker
       forms (the later wins): the last option line introduced by a line
       ending in a colon ("the correct answer is indeed:" / "**D) …**"; not
       when that line introduces the other or rejected options, nor a list
       item or an option line followed by another option's line), and, with
       the option texts, an option named with its full text and a verdict
       ("**C) Kommunist** hisoblanadi"; not with another option named in the
       same sentence, nor with a negation after it).
    2. Else a **first line that is only an option** (``C``, ``**C) text**``),
       unless the next line lists the next option (an echo of the options);
       or a **last line that is only an option** (``D``, ``C.發明印刷術``)
       after a line that is not another option's, and not the next header
       of an option-by-option review.
    3. Else **option lines with a verdict**: exactly one option whose line
       calls it right after a dash or colon ("A) … – to'g'ri", "C) … ✓"), or
       whose header line (only its text) is followed right away by a line
       calling it right; or the one option named in the **last paragraph**
       (not a list item, not rejected, and — when the paragraph may be cut
       off — called right or ending the paragraph).
    4. Else, when the option texts are known, an **option given by its
       text**: the whole response, or the quoted / rest-of-line text after
       an answer phrase, equals one option's text, or the last line ends
       with one option's full text after ``是``, ``:``, ``is`` or a
       conclusion word.
    5. Else exactly one distinct option letter in the whole response, unless
       its only uses head list items discussing the options ("- Option A: …
       This could"), are glued to a word by "=" or are each rejected in
       their clause ("A) … – ❌"); a range ("none of A–D") names no option.
    6. Else, with the option texts, the one option whose full text the
       last complete sentence contains ("… Qashqadaryo viloyatida
       joylashgan."), with no other option's text and nothing negative.

    Conclusion and revision words count as answer phrases too (``Шешім: C``,
    ``Чечим``, ``Дүгнэлт``, ``Жыйынтык``, ``Actually, C.``, ``Correction:
    C``, ``To'g'rirog'i: C)``, ``Дұрысы — С``, ``更正：C``), so an answer
    revised at the end wins.  A statement that **no option is right**
    ("None of the options is correct", "Hech bir variant to'g'ri emas",
    "Ешбір нұсқа дұрыс емес", "Ни один из вариантов не верен", "都不正确")
    after every answer statement means no answer, and so does an
    option-by-option review from A with no pick (its first line "A) …" is a
    header, not a choice).  A response cut off before it commits, or
    discussing several options without choosing, has no answer.

    >>> final_answer("To'g'ri javob: **B) Gurs**\\n\\n- A) noto'g'ri\\n- C) xato")
    'B'
    >>> final_answer("A) bir\\nB) ikki\\nC) uch\\nD) to'rt") is None
    True
    >>> final_answer("Javob: Bolaxona", options=["Boloxona", "Balxona", "Bolxona", "Bolaxona"])
    'D'
    >>> final_answer("The closest is:\\n\\nA) Adil\\n\\nbut the correct answer is indeed:\\n\\n**D) Ikkovi ham xato**")
    'D'
    >>> final_answer("None of the options A–D is correct.") is None
    True
    >>> final_answer("A 错。B 对。C 错。\\n\\n不正确的是 **C**。")
    'C'
    >>> final_answer("Сондықтан жауап C емес, B.")
    'B'
    >>> final_answer("Жауабы: Б) Н. Бор")
    'B'
    >>> final_answer("Answer: A. Actually, C."), final_answer("A) 5. None of the options is correct.")
    ('C', None)
    """
    n = check_n(n_options)
    return final_letter(response, LATIN_LABELS[:n], options)


# --- "none of the options is right" ------------------------------------------------------------------------
# An explicit statement that no option is right is a commitment to no answer (the last commitment wins).
# (each alternative starts with a literal character, see _PHRASE)
_NONE_LATIN = re.compile("|".join([
    _alts("None none", r"\s+of\s+(?:the\s+|these\s+|those\s+)?(?:given\s+|four\s+|five\s+|provided\s+|listed\s+)?"
          r"(?:options|answers|choices|variants|alternatives)(?:\s+(?:given|listed|provided|above))?\s+"
          r"(?:is|are|seems?|appears?|matches|match|fits?)(?:\s+to\s+be)?\s+(?:the\s+)?(?:correct|right|true|valid|accurate)"),
    _alts("No no", r"\s+(?:correct|right)\s+(?:option|answer|choice)\s+(?:is\s+)?(?:given|among|listed|provided)"),
    _alts("Neither neither", r"\s+(?:option|answer|choice)\s+is\s+(?:correct|right)"),
    _alts("Hech hech", rf"\s+(?:bir(?:i|ta)?|qaysi(?:si)?)\s*(?:variant\w*|javob\w*)?\s+(?:ham\s+)?to{_AP}g{_AP}ri\s+"
          r"(?:emas|kelmaydi)"),
    _alts("To to", rf"{_AP}g{_AP}ri\s+(?:javob|variant)\s+(?:mavjud\s+emas|yo{_AP}q)"),
]))
_NONE_OTHER = re.compile(
    "|".join(
        [
            _alts("Ешбір ешбір", r"\s+(?:нұсқа\w*\s+)?дұрыс\s+емес"),
            _alts("Ешқайсысы ешқайсысы", r"\s+(?:да\s+)?дұрыс\s+емес"),
            _alts("Дұрыс дұрыс", r"\s+жауап\s+жоқ"),
            _alts("Бир бир", r"\s+да\s+(?:вариант\s+)?туура\s+эмес"),
            _alts("Эч эч", r"\s+бири\s+(?:да\s+)?туура\s+эмес"),
            _alts("Туура туура", r"\s+жооп\s+жок"),
            _alts(
                "Ни ни",
                r"\s+один\s+(?:из\s+)?(?:вариант\w*|ответ\w*|предложенных\s+\w+)\s+не\s+"
                r"(?:верн|верен|правильн|правилен|подходит|является)",
            ),
            _alts("Нет нет", r"\s+(?:правильного|верного)\s+(?:ответа|варианта)"),
            _alts("Правильного правильного", r"\s+(?:ответа|варианта)\s+нет"),
            _alts("Все все", r"\s+варианты\s+(?:неверн|неправильн|ошибочн)"),
            _alts("Зөв зөв", r"\s+хариулт\s+байхгүй"),
            _alts("Аль аль", r"\s+нь\s+ч\s+зөв\s+биш"),
            _alts(
                "都不正确 均不正确 都不正確 均不正確 皆不正确 皆不正確 都不对 都不對 "
                "没有正确答案 沒有正確答案 没有正确选项 沒有正確選項 "
                "无正确答案 無正確答案"
            ),
            r"توغرا\s+جاۋاب\s+يوق|ھېچقايسى(?:سى)?\s+توغرا\s+ئەمەس",
        ]
    )
)
_CYRILLIC_ARABIC = re.compile("[\u0400-\u04FF\u0600-\u06FF]")
_NON_LATIN = re.compile("[\u0400-\u04FF\u0600-\u06FF\u4e00-\u9fff]")
_MARKED = re.compile(r"(?:[(\[]?[A-F](?:[)\].:]|\*\*)|[A-F]\s+[–—-])[\s*]*$")


# An option about the other options ("Ikkovi ham xato", "Barchasi to'g'ri", "None of the above", "以上都对"):
# with one, saying that none of the others is right is an argument for it, not a refusal.
_META_OPTION = re.compile(r"(?i)(?<!\w)(?:ikkovi|ikkala|barcha\w*|hamma\w*|all|both|none|neither|екеуі|барлығы|бәрі|"
                          r"все|оба|ни\s+один)(?!\w)|以上|全部|都")


def _none_right(text: str, options: Sequence[str] | None, start: int = 0, other_script: bool = True) -> bool:
    """Whether ``text`` states, after ``start``, that no option is right ("None of the options is
    correct", "Ешбір нұсқа дұрыс емес", "都不正确"); not in the text of an option ("D) None of the
    above is correct"), nor when an option is about the others or is itself negative ("Ikkovi ham
    xato", "Barchasi to'g'ri"): then the statement argues for that option.
    ``other_script``: whether ``text`` has Cyrillic, Arabic or CJK letters."""
    tail = text[start:] if start else text
    hits: list[re.Match[str]] = []
    if (
        "one of" in tail
        or "either" in tail
        or "o correct" in tail
        or "o right" in tail
        or "ech bir" in tail
        or "ech qaysi" in tail
        or "mavjud emas" in tail
        or "javob yo" in tail
    ):  # (substring tests: the cheapest gate)
        hits += _NONE_LATIN.finditer(tail)
    if other_script and ("不" in tail or "有正" in tail or "无正" in tail or "無正" in tail
                         or _CYRILLIC_ARABIC.search(tail)):
        hits += _NONE_OTHER.finditer(tail)
    if not hits or all(_MARKED.search(tail, max(0, m.start() - 8), m.start()) for m in hits):
        return False
    return not (options and any(_META_OPTION.search(o) or _NEGATIVE.search(o) or _NONE_LATIN.search(o)
                                or _NONE_OTHER.search(o) for o in options))


# --- an option-by-option review ------------------------------------------------------------------------------
_HEAD_LINE = re.compile(r"^[ \t>#*_\-•]*(?:\*\*)?[ \t]*[(\[]?([A-F])(?:[)\].:]|\*\*)", re.M)


def _is_review(text: str, P: "_Patterns") -> bool:
    """Whether ``text`` discusses the options one by one from the first: lines headed A, B, C … in
    order, with other lines between them (not a bare echo of the options) and no option called right,
    so that its first line is the first option's header, not a choice."""
    heads = [m.group(1) for m in P.HEAD_LINE.finditer(text)]
    if len(heads) < 3 or heads[0] != "A":
        return False
    order = list(dict.fromkeys(heads))
    return (len(order) >= 3 and order == list(LATIN_LABELS[:len(order)]) and text.count("\n") > len(heads)
            and not _POSITIVE.search(text))   # (no option is called right anywhere)


# --- an answer given by its text in the last sentence --------------------------------------------------------
_CJK = re.compile(r"[\u3400-\u9fff\uf900-\ufaff]+")
_SENTENCE_END = re.compile(r"[.!。！།༎]['\"”’»*_)）]*\s*$")
_SENTENCES = re.compile(r"(?<=[.!?。！？])\s+|\n+")


def _text_in_last_sentence(text: str, options: Sequence[str]) -> str | None:
    """The one option whose full text the last sentence contains ("… Shahrisabz Qashqadaryo viloyatida
    joylashgan."), when it contains no other option's text (an option inside a longer one does not count),
    names no other option's letter and says nothing negative about it; not a list item or an option's
    line."""
    P = _pats_n(len(options))
    tail = text.rstrip()[-600:]
    parts = [p for p in _SENTENCES.split(tail) if p.strip()]
    if not parts:
        return None
    last = parts[-1]
    if _BULLET.match(last) or P.OPTION_HEAD.match(last) or not _SENTENCE_END.search(last):
        return None   # a list item, an option's line, or a response cut off mid-sentence
    sent = " " + norm_option(last) + " "
    norm = [norm_option(o) for o in options]
    hits = []
    for i in sorted(range(len(norm)), key=lambda k: -len(norm[k])):   # the longest first: "qush turi" before "qush"
        o = norm[i]
        if len(o) >= 4 and f" {o} " in sent:
            hits.append(i)
            sent = sent.replace(f" {o} ", " | ")
        elif len(o) >= 2 and _CJK.fullmatch(o) and o in sent:   # (Chinese writes no spaces between words)
            hits.append(i)
            sent = sent.replace(o, " | ")
    if len(hits) != 1:
        return None
    rest = sent
    if _NEGATIVE.search(rest) or "?" in last or "？" in last:
        return None
    letter = LATIN_LABELS[hits[0]]
    if any(m.group(1) != letter for m in P.LATIN_FINAL.finditer(last)):
        return None   # "to'g'ri variantlar - C va D, ya'ni Xongul": the letters it names decide, not the text
    return letter


class _Patterns:
    """The patterns that name an option letter, for items of up to six options (A–F, as they
    always were) or of seven to ten (A–J, with the pronoun "I" told apart: see
    :func:`audit.ingest.extract._filters.widen`)."""

    NAMES = ("AFTER", "MORE", "MORE_TEXT", "CHECKED", "VERDICT_LINE", "POSTFIX", "LATE", "CLOSING", "INSTEAD",
             "LETTER_END", "CONCLUSION", "BOXED", "OPTION_LINE", "LAST_LINE", "OPTION_HEAD", "MARKER", "RANGE",
             "DISCUSSED", "HEAD_LINE", "LATIN_FINAL")

    def __init__(self, wide: bool):
        for name in self.NAMES:
            pattern = globals()["_" + name]
            setattr(self, name, widen(pattern, _ARTICLE) if wide else pattern)

    def __getattr__(self, name: str) -> "re.Pattern[str]":   # the attributes set above, for the type checker
        raise AttributeError(name)


_NARROW = _Patterns(False)
_WIDE = _Patterns(True)


def _pats(valid: tuple[str, ...]) -> _Patterns:
    return _NARROW if len(valid) <= 6 else _WIDE


def _pats_n(n: int) -> _Patterns:
    return _NARROW if n <= 6 else _WIDE


def final_letter(response: str | None, valid: tuple[str, ...], options: Sequence[str] | None = None) -> str | None:
    """:func:`final_answer` with the valid letters given (``LATIN_LABELS[:n]``, checked by the caller).

    >>> final_letter("Answer: C", ("A", "B", "C", "D")), final_letter("Answer: C", ("A", "B"))
    ('C', None)
    """
    P = _pats(valid)
    if not response:
        return None
    if len(response) <= 4:
        bare = response.strip().strip("().*")
        if bare in valid:
            return bare
    text = prepare(response, bounded=True)
    other_script = not text.isascii() and _NON_LATIN.search(text) is not None   # Cyrillic, Arabic, CJK
    if other_script and _ANY_CYRILLIC.search(text):
        text = cyrillic_letters(text, valid, options)
    if "–" in text or "—" in text or "-" in text:
        text = P.RANGE.sub(" ", text)  # "none of A–D": a range names every option, not one
    c = _commitments(text, valid)
    start = c[0] + 1 if c else 0
    if (other_script or len(text) - start > 24) and _none_right(text, options, start, other_script):
        return None   # "none of the options is right", after any answer statement
    if c is None:   # weaker forms of commitment: only when there is no answer statement
        for other in (_introduced(text, valid, options), _text_verdict(text, valid, options) if options else None):
            if other is not None and (c is None or other[0] > c[0]):
                c = other
    if c is not None:
        return c[1]
    letter = _first_line_option(text, valid, options) or _last_line_option(text, valid, options)
    if letter is not None:
        return letter
    letter = _verdict_lines(text, valid, options) or _last_paragraph(text, valid, options)
    if letter is not None:
        return letter
    if options:
        letter = _by_text(text, options)
        if letter is not None:
            return letter
    # No statement: one distinct letter in the whole response (Direct Answer).
    letter = _only_letter(text, valid, options)
    if letter is None and options:
        letter = _text_in_last_sentence(text, options)
    return letter
