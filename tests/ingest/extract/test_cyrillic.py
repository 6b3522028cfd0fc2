"""Cyrillic option letters: А Б В Г Д are read as the options they stand for.

A Cyrillic letter may stand for the Latin letter it looks or sounds like (А→A, Б→B, В→B, С→C, Д→D) or
for its place in the Cyrillic alphabet (А Б В Г Д → A B C D E).  When it has two readings, the option text
written after it decides.  Table tests in Kazakh, Kyrgyz, Russian and Mongolian (expectations written by
reading), then a TUMLU-style set: three models, each shown the options of the same Kazakh questions in its
own shuffled order, answering as TUMLU's Kazakh outputs do (``А) 323``, ``Б) Н. Бор``, ``Д) Ауа тамыр.``);
at least 95% of the answers written with Cyrillic letters must be read, and every letter read is checked
against the option text that follows it in the response.
"""
from __future__ import annotations

import random
import re

import pytest

from audit.ingest.extract import extract_answers, final_answer

KK = ["323", "Н. Бор", "Ауа тамыр.", "Күн"]
KK2 = ["Н. Бор", "323", "Күн", "Ауа тамыр."]
KG = ["Ош", "Бишкек", "Ысык-Көл", "Нарын"]
RU = ["1986", "1993", "1991", "1995"]
RU5 = ["Один", "Два", "Три", "Четыре", "Пять"]
MN = ["Дархан", "Улаанбаатар", "Хөвсгөл", "Эрдэнэт"]
WRITERS = ["Ә. Нұрпейісов", "С. Мұқанов", "М. Әуезов", "Ғ. Мүсірепов"]

# (id, response, options or None, expected Latin letter or None)
CASES = [
    # --- Kazakh
    ("kk letter and text", "А) 323", KK, "A"),
    ("kk be", "Б) Н. Бор", KK, "B"),
    ("kk de with a full stop", "Д) Ауа тамыр.", KK2, "D"),
    ("kk answer be", "Жауабы: Б) Н. Бор", KK, "B"),
    ("kk ve read by its text as the third", "Дұрыс жауап: **В) Ауа тамыр.**", KK, "C"),
    ("kk ve read by its text as B", "Дұрыс жауап: **В) Н. Бор**", KK, "B"),
    ("kk ghe is the fourth", "Жауабы: Г", None, "D"),
    ("kk option word", "А нұсқасы қате, Б нұсқасы да қате. Дұрыс жауап – С нұсқасы.", None, "C"),
    ("kk decision word", "А және Б қате.\n\nШешім: Д", None, "D"),
    ("kk echo in Cyrillic order then ve", "А) 323\nБ) Н. Бор\nВ) Ауа тамыр.\nГ) Күн\n\nЖауабы: В", KK, "C"),
    ("kk echo in Cyrillic order without texts", "А) 323\nБ) Н. Бор\nВ) Ауа тамыр.\nГ) Күн\n\nЖауабы: В", None, "C"),
    ("kk preposition is no letter", "Жауап: В 1914 жылы басталды.", None, None),
    ("kk quoted word is no letter", "Ол «С", None, None),
    ("kk initial of an option's text", "Жауабы: С. Мұқанов", WRITERS, "B"),
    ("kk letter contradicting its text", "Жауабы: Б) Күн", KK, None),
    # --- Kyrgyz
    ("ky answer be", "Туура жооп: Б) Бишкек", KG, "B"),
    ("ky ve by its text", "Жообу: В) Ысык-Көл", KG, "C"),
    ("ky decision word", "А туура эмес, Б да туура эмес.\n\nЧечим: Г", None, "D"),
    ("ky conclusion", "Жыйынтык: Б", None, "B"),
    # --- Russian
    ("ru lower-case letter", "Ответ: б) 1993", RU, "B"),
    ("ru ve by its text", "Правильный ответ — В) 1991", RU, "C"),
    ("ru ghe after a sentence", "В 1991 году Казахстан объявил независимость. Ответ: Г", None, "D"),
    ("ru de as the fifth by its text", "А) Один\nБ) Два\nВ) Три\nГ) Четыре\nД) Пять\n\nОтвет: Д) Пять", RU5, "E"),
    ("ru initials are no letter", "Это сказал В. И. Ленин.", None, None),
    ("ru none is right", "А) 1986 — нет. Б) 1993 — нет.\n\nНи один из вариантов не верен.", RU, None),
    # --- Mongolian
    ("mn answer be", "Хариулт: Б) Улаанбаатар", MN, "B"),
    ("mn correct answer ve", "Зөв хариулт: В) Хөвсгөл", MN, "C"),
    ("mn conclusion ghe", "А, Б буруу.\n\nДүгнэлт: Г", None, "D"),
    ("mn answer a", "Хариулт: А", None, "A"),
]


@pytest.mark.parametrize("response,options,expected", [c[1:] for c in CASES], ids=[c[0] for c in CASES])
def test_cyrillic_letters(response, options, expected):
    assert final_answer(response, len(options) if options else 4, options) == expected


# --- a TUMLU-style set ------------------------------------------------------------------------------------------
QUESTIONS = [  # (question, options; the first is the key)
    ("17 × 19 = ?", ["323", "333", "313", "343"]),
    ("Атом моделін ұсынған ғалым?", ["Н. Бор", "Э. Резерфорд", "Дж. Томсон", "М. Планк"]),
    (
        "Орхидеяның ылғалды ауадан су сіңіретін тамыры?",
        ["Ауа тамыр.", "Кіндік тамыр.", "Жанама тамыр.", "Түйнек тамыр."],
    ),
    ("Абай Құнанбайұлы қай жылы туған?", ["1845", "1855", "1835", "1865"]),
    ("Күн жүйесіндегі ең үлкен планета?", ["Юпитер", "Сатурн", "Жер", "Марс"]),
    ("Судың химиялық формуласы?", ["H₂O", "CO₂", "NaCl", "O₂"]),
    (
        "Қазақ хандығының негізін қалағандар?",
        ["Керей мен Жәнібек", "Абылай мен Кенесары", "Тәуке мен Әз Жәнібек", "Қасым мен Хақназар"],
    ),
    ("Қазақстандағы ең ұзын өзен?", ["Ертіс", "Сырдария", "Іле", "Жайық"]),
    ("Фотосинтез кезінде бөлінетін газ?", ["Оттегі", "Көмірқышқыл газы", "Азот", "Сутегі"]),
    ("Ньютонның екінші заңы?", ["F = ma", "E = mc²", "P = UI", "U = IR"]),
    ("Әлемдегі ең терең көл?", ["Байкал", "Балқаш", "Каспий", "Виктория"]),
    ("1 км неше метр?", ["1000", "100", "10000", "10"]),
    ("«Қан мен тер» романының авторы?", ["Ә. Нұрпейісов", "М. Әуезов", "С. Мұқанов", "Ғ. Мүсірепов"]),
    ("ДНҚ құрылымын ашқандар?", ["Уотсон мен Крик", "Мендель мен Морган", "Дарвин мен Уоллес", "Пастер мен Кох"]),
    ("Қазақстан тәуелсіздігін қай жылы жариялады?", ["1991", "1986", "1993", "1995"]),
    ("Ең кіші жай сан?", ["2", "1", "3", "0"]),
    ("Адам жүрегі неше камерадан тұрады?", ["Төрт", "Үш", "Екі", "Бес"]),
    ("Алматы қай тау баурайында орналасқан?", ["Іле Алатауы", "Жоңғар Алатауы", "Қаратау", "Алтай"]),
    ("Дыбыс вакуумда қалай таралады?", ["Таралмайды", "340 м/с", "1500 м/с", "3·10⁸ м/с"]),
    ("Қазақстанның астанасы?", ["Астана", "Алматы", "Шымкент", "Қарағанды"]),
]
LOOK = "АБСДЕ"      # the letters a model writes for A B C D E when it writes them by look or sound
PLACE = "АБВГДЕ"    # … by their place in the Cyrillic alphabet
EXPLAIN = ["Бұл белгілі факт.", "Есептеп шықтық.", "Оқулықта осылай жазылған.", "Басқа нұсқалар сәйкес келмейді."]
# (model, letters it writes (the third model writes Latin ones), response templates: {L} the letter,
#  {T} the option text, {E} an explanation, {ECHO} the options as the model was shown them, in its lettering)
MODELS = [
    (
        "meta-llama/Llama-3.1-70B-Instruct",
        LOOK,
        [
            "{L}) {T}",
            "{L}) {T}",
            "Жауабы: {L}) {T}",
            "**{L}) {T}**\n\n{E}",
            "{E}\n\nДұрыс жауап: {L}) {T}",
            "Жауабы: {L}",
        ],
    ),
    (
        "Qwen/Qwen2.5-72B-Instruct",
        PLACE,
        [
            "Дұрыс жауап: **{L}) {T}**",
            "{E} Сондықтан жауап: {L}) {T}",
            "{ECHO}\n\nЖауабы: {L}) {T}",
            "Шешім: {L}) {T}",
            "{L}) {T}\n\n{E}",
            "{ECHO}\n\nЖауабы: {L}",
        ],
    ),
    ("google/gemma-2-27b-it", "ABCDE", ["{L}) {T}", "Жауап: **{L}) {T}**", "{E}\n\n{L}) {T}", "Жауабы — {L}) {T}"]),
]


def tumlu_style_outputs(seed: int = 20) -> list[dict]:
    """Records as TUMLU's outputs hold them: the question, ``choices`` in the order shown to that model, the
    raw ``output``, and the key's letter in that order; plus what the model meant (``meant``: the Latin letter
    of the option it wrote, for the check)."""
    rnd = random.Random(seed)
    records = []
    for model, letters, templates in MODELS:
        for q, (question, options) in enumerate(QUESTIONS):
            shown = list(options)
            random.Random(f"{model}/{q}").shuffle(shown)
            pick = options[0] if rnd.random() < 0.8 else rnd.choice(options[1:])
            i = shown.index(pick)
            echo = "\n".join(f"{letters[k]}) {t}" for k, t in enumerate(shown))
            output = rnd.choice(templates).format(L=letters[i], T=pick, E=rnd.choice(EXPLAIN), ECHO=echo)
            records.append({"model": model, "question": question, "choices": shown, "output": output,
                            "answer": "ABCD"[shown.index(options[0])], "meant": "ABCD"[i]})
    return records


_WRITTEN = re.compile(r"(?:^|[\s*:—])([А-ЯA-Z])\)\s*(.+?)\**\s*$", re.M)


def test_tumlu_style_cyrillic_letters_are_read_and_match_their_text():
    records = tumlu_style_outputs()
    assert len(records) == 60 and len({tuple(r["choices"]) for r in records}) > 20   # orders differ per model
    got = extract_answers([r["output"] for r in records], 4, "final", options=[r["choices"] for r in records])
    cyrillic = [i for i, r in enumerate(records) if re.search(r"(?<!\w)[АБВГДС](?!\w)", r["output"])]
    assert len(cyrillic) >= 40
    read = [i for i in cyrillic if got[i] == records[i]["meant"]]
    assert len(read) / len(cyrillic) >= 0.95, [(records[i]["output"], got[i]) for i in cyrillic if i not in read]
    # every letter read, checked against the option text written after the letter on the answer line
    # (an independent reading: the text after "X)" must be the text of the option read)
    checked = 0
    for r, g in zip(records, got):
        written = _WRITTEN.findall(r["output"].rstrip().rsplit("\n", 1)[-1])   # the answer line
        if g is None or not written:
            continue
        text = written[-1][1].strip()
        assert r["choices"]["ABCD".index(g)] == text, (r["model"], r["output"], g, r["choices"])
        checked += 1
    assert checked >= 45
    # and no answer is read that the model did not mean
    assert all(g is None or g == r["meant"] for r, g in zip(records, got))


def test_tumlu_style_latin_methods_do_not_read_cyrillic():
    """The letter-counting methods (TLUE's rules) count Latin letters only: what 'final' adds."""
    records = tumlu_style_outputs()
    caa = extract_answers([r["output"] for r in records], 4, "caa")
    final = extract_answers([r["output"] for r in records], 4, "final", options=[r["choices"] for r in records])
    assert sum(x is not None for x in final) > sum(x is not None for x in caa)
