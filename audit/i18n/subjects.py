"""Plain subject names for the interface: never a code such as
``high_school_chemistry``.  In Chinese a CMMLU subject shows the Chinese name
CMMLU itself uses (``name_en2zh`` of github.com/haonan-li/CMMLU); in Tibetan
one of TLUE's 67 subjects (the same codes: TLUE was translated from CMMLU)
shows its Tibetan name from :data:`CMMLU_BO` — a **draft** that no native
speaker has checked yet; every other code becomes words ("High school
chemistry").

>>> subject_name("high_school_chemistry", "en"), subject_name("high_school_chemistry", "zh-Hans")
('High school chemistry', '高中化学')
>>> subject_name("agronomy", "bo"), subject_name("world_history", "bo")
('ཞིང་ལས་རིག་པ', 'འཛམ་གླིང་ལོ་རྒྱུས')
>>> subject_name("Tibetan grammar", "bo"), subject_name(None, "en")
('Tibetan grammar', '')
"""
from __future__ import annotations

import re

from audit.i18n import en
from audit.i18n._catalogue import translate

CMMLU_ZH: dict[str, str] = {
    "agronomy": "农学", "anatomy": "解剖学", "ancient_chinese": "古汉语", "arts": "艺术学", "astronomy": "天文学",
    "business_ethics": "商业伦理", "chinese_civil_service_exam": "中国公务员考试", "chinese_driving_rule": "中国驾驶规则",
    "chinese_food_culture": "中国饮食文化", "chinese_foreign_policy": "中国外交政策", "chinese_history": "中国历史",
    "chinese_literature": "中国文学", "chinese_teacher_qualification": "中国教师资格", "clinical_knowledge": "临床知识",
    "college_actuarial_science": "大学精算学", "college_education": "大学教育学",
    "college_engineering_hydrology": "大学工程水文学", "college_law": "大学法律", "college_mathematics": "大学数学",
    "college_medical_statistics": "大学医学统计", "college_medicine": "大学医学", "computer_science": "计算机科学",
    "computer_security": "计算机安全", "conceptual_physics": "概念物理学",
    "construction_project_management": "建设工程管理", "economics": "经济学", "education": "教育学",
    "electrical_engineering": "电气工程", "elementary_chinese": "小学语文", "elementary_commonsense": "小学常识",
    "elementary_information_and_technology": "小学信息技术", "elementary_mathematics": "初等数学",
    "ethnology": "民族学", "food_science": "食品科学", "genetics": "遗传学", "global_facts": "全球事实",
    "high_school_biology": "高中生物", "high_school_chemistry": "高中化学", "high_school_geography": "高中地理",
    "high_school_mathematics": "高中数学", "high_school_physics": "高中物理学", "high_school_politics": "高中政治",
    "human_sexuality": "人类性行为", "international_law": "国际法学", "journalism": "新闻学", "jurisprudence": "法理学",
    "legal_and_moral_basis": "法律与道德基础", "logical": "逻辑学", "machine_learning": "机器学习",
    "management": "管理学", "marketing": "市场营销", "marxist_theory": "马克思主义理论", "modern_chinese": "现代汉语",
    "nutrition": "营养学", "philosophy": "哲学", "professional_accounting": "专业会计", "professional_law": "专业法学",
    "professional_medicine": "专业医学", "professional_psychology": "专业心理学", "public_relations": "公共关系",
    "security_study": "安全研究", "sociology": "社会学", "sports_science": "体育学",
    "traditional_chinese_medicine": "中医中药", "virology": "病毒学", "world_history": "世界历史",
    "world_religions": "世界宗教",
}


#: Tibetan names of TLUE's subjects (the CMMLU codes).  DRAFT: written without
#: a native speaker; the words follow those TLUE's own Tibetan items use where
#: they have one (སྐར་དཔྱད "astronomical observation", ནད་དུག "virus", སེམས་ཁམས་རིག་པ
#: "psychology", ལྟ་གྲུབ "philosophy", འཚོ་བཅུད "nutrition", རྩིས་ཁྲ "accounting",
#: གསར་འགྱུར "news", ཆུ་དཔྱད "hydrology", ཕྱི་འབྲེལ "foreign affairs", རྒྱུན་ཤེས
#: "common knowledge").  "High school" is མཐོ་འབྲིང and "college" སློབ་ཆེན.
CMMLU_BO_DRAFT = True
CMMLU_BO: dict[str, str] = {
    "agronomy": "ཞིང་ལས་རིག་པ", "anatomy": "ལུས་གཤག་རིག་པ", "ancient_chinese": "རྒྱ་ཡིག་རྙིང་པ",
    "arts": "སྒྱུ་རྩལ་རིག་པ", "astronomy": "སྐར་དཔྱད་རིག་པ", "business_ethics": "ཚོང་ལས་ཀུན་སྤྱོད",
    "chinese_civil_service_exam": "ཀྲུང་གོའི་གཞུང་ལས་བྱེད་པའི་འདེམས་རྒྱུགས",
    "chinese_driving_rule": "ཀྲུང་གོའི་ཁ་ལོ་བའི་སྒྲིག་སྲོལ", "chinese_food_culture": "ཀྲུང་གོའི་བཟའ་བཏུང་རིག་གནས",
    "chinese_foreign_policy": "ཀྲུང་གོའི་ཕྱི་འབྲེལ་སྲིད་ཇུས", "chinese_history": "ཀྲུང་གོའི་ལོ་རྒྱུས",
    "chinese_literature": "ཀྲུང་གོའི་རྩོམ་རིག", "chinese_teacher_qualification": "ཀྲུང་གོའི་དགེ་རྒན་ཁྱད་ཚད",
    "clinical_knowledge": "ནད་གསོའི་ལག་ལེན་ཤེས་བྱ", "college_actuarial_science": "སློབ་ཆེན་ཉེན་སྲུང་རྩིས་རིག",
    "college_education": "སློབ་ཆེན་སློབ་གསོ་རིག་པ", "college_engineering_hydrology": "སློབ་ཆེན་བཟོ་སྐྲུན་ཆུ་དཔྱད",
    "college_law": "སློབ་ཆེན་ཁྲིམས་ལུགས", "college_mathematics": "སློབ་ཆེན་གྲངས་རིག",
    "college_medical_statistics": "སློབ་ཆེན་གསོ་རིག་སྡོམ་རྩིས", "college_medicine": "སློབ་ཆེན་གསོ་རིག",
    "computer_science": "རྩིས་འཁོར་ཚན་རིག", "computer_security": "རྩིས་འཁོར་བདེ་འཇགས",
    "conceptual_physics": "དངོས་ལུགས་རིག་པའི་གོ་དོན", "construction_project_management": "འཛུགས་སྐྲུན་ལས་གཞིའི་དོ་དམ",
    "economics": "དཔལ་འབྱོར་རིག་པ", "education": "སློབ་གསོ་རིག་པ", "electrical_engineering": "གློག་ཤུགས་བཟོ་སྐྲུན",
    "elementary_chinese": "སློབ་ཆུང་རྒྱ་ཡིག", "elementary_commonsense": "སློབ་ཆུང་རྒྱུན་ཤེས",
    "elementary_information_and_technology": "སློབ་ཆུང་ཆ་འཕྲིན་ལག་རྩལ", "elementary_mathematics": "གཞི་རིམ་གྲངས་རིག",
    "ethnology": "མི་རིགས་རིག་པ", "food_science": "བཟའ་བཅའི་ཚན་རིག", "genetics": "རྒྱུད་འཛིན་རིག་པ",
    "global_facts": "འཛམ་གླིང་གི་དོན་དངོས", "high_school_biology": "མཐོ་འབྲིང་སྐྱེ་དངོས་རིག་པ",
    "high_school_chemistry": "མཐོ་འབྲིང་རྫས་འགྱུར་རིག་པ", "high_school_geography": "མཐོ་འབྲིང་ས་ཁམས་རིག་པ",
    "high_school_mathematics": "མཐོ་འབྲིང་གྲངས་རིག", "high_school_physics": "མཐོ་འབྲིང་དངོས་ལུགས་རིག་པ",
    "high_school_politics": "མཐོ་འབྲིང་ཆབ་སྲིད", "human_sexuality": "མིའི་ཕོ་མོའི་ཤེས་བྱ",
    "international_law": "རྒྱལ་སྤྱིའི་ཁྲིམས་ལུགས", "journalism": "གསར་འགྱུར་རིག་པ", "jurisprudence": "ཁྲིམས་ཀྱི་གཞུང་ལུགས",
    "legal_and_moral_basis": "ཁྲིམས་ལུགས་དང་ཀུན་སྤྱོད་ཀྱི་གཞི་རྩ", "logical": "རྟགས་རིག",
    "machine_learning": "འཕྲུལ་ཆས་སློབ་སྦྱོང", "management": "དོ་དམ་རིག་པ", "marketing": "ཚོང་རའི་གཉེར་སྐྱོང",
    "marxist_theory": "མར་ཁེ་སིའི་རིང་ལུགས་ཀྱི་གཞུང་ལུགས", "modern_chinese": "དེང་རབས་རྒྱ་སྐད",
    "nutrition": "འཚོ་བཅུད་རིག་པ", "philosophy": "ལྟ་གྲུབ་རིག་པ", "professional_accounting": "ཆེད་ལས་རྩིས་ཁྲ",
    "professional_law": "ཆེད་ལས་ཁྲིམས་རིག", "professional_medicine": "ཆེད་ལས་གསོ་རིག",
    "professional_psychology": "ཆེད་ལས་སེམས་ཁམས་རིག་པ", "public_relations": "སྤྱི་པའི་འབྲེལ་བ",
    "security_study": "བདེ་འཇགས་ཞིབ་འཇུག", "sociology": "སྤྱི་ཚོགས་རིག་པ", "sports_science": "ལུས་རྩལ་ཚན་རིག",
    "traditional_chinese_medicine": "རྒྱ་སྨན་དང་སྨན་རྫས", "virology": "ནད་དུག་རིག་པ",
    "world_history": "འཛམ་གླིང་ལོ་རྒྱུས", "world_religions": "འཛམ་གླིང་ཆོས་ལུགས",
}
assert set(CMMLU_BO) == set(CMMLU_ZH)


# A subject that ends in a language tag in brackets ("multiplication (kk-Arab)",
# as the demo names its subjects): the tag reads as the language's name.
_TAGGED = re.compile(r"^(?P<subject>.+?)\s*\((?P<tag>[a-z]{2,3}(?:-[A-Z][a-z]{3})?(?:-[A-Z]{2})?)\)$")


def subject_name(code: str | None, lang: str) -> str:
    """The subject ``code`` as a reader of ``lang`` should see it; a
    language tag in brackets reads as the language's name.

    >>> subject_name("multiplication (kk-Arab)", "en"), subject_name("addition (bo)", "zh-Hans")
    ('multiplication (Kazakh, Arabic script)', 'addition (藏文)')
    """
    if not code:
        return ""
    key = str(code).strip()
    m = _TAGGED.match(key)
    if m:
        name_key = f"language.{m.group('tag')}"
        if name_key in en.MESSAGES:
            return f"{subject_name(m.group('subject'), lang)} ({translate(name_key, lang)})"
    if lang == "zh-Hans" and key.lower() in CMMLU_ZH:
        return CMMLU_ZH[key.lower()]
    if lang == "bo" and key.lower() in CMMLU_BO:
        return CMMLU_BO[key.lower()]
    if "_" in key and " " not in key:
        words = key.replace("_", " ").strip()
        return words[:1].upper() + words[1:]
    return key
