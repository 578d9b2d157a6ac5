"""The same word in two scripts, or two spellings (갤럭시 → galaxy, 후라이팬 → 프라이팬): one spelling for the rules.

Where the words come from: loan words Korean titles write in Hangul or in Latin letters for the same product.
"""

from __future__ import annotations

# as the usual spelling). Used for brands and common product words, whole or inside a glued word.
TRANSLITERATIONS: dict[str, str] = {
    "갤럭시": "galaxy", "플레이스테이션": "playstation", "블루투스": "bluetooth", "에어팟": "airpods",
    "버즈": "buds", "아이폰": "iphone", "아이패드": "ipad", "맥북": "macbook", "아이맥": "imac",
    "에디션": "edition", "디스크": "disc", "디지털": "digital", "프로": "pro", "워치": "watch", "북": "book",
    "울트라": "ultra", "플러스": "plus", "맥스": "max", "미니": "mini", "라이트": "lite", "슬림": "slim",
    "알파": "alpha", "오메가": "omega",
    "에어": "air", "노트": "note", "엣지": "edge", "스위치": "switch", "디텍트": "detect", "컴플리트": "complete",
    "오리진": "origin", "제로": "zero", "슈거": "sugar", "슈가": "sugar", "라임": "lime", "레몬": "lemon",
    "망고": "mango", "체리": "cherry", "오리지널": "original", "클래식": "classic", "화이트": "white",
    "블랙": "black", "타입": "type", "세대": "gen", "레귤러": "regular", "코드리스": "무선", "후라이팬": "프라이팬",
    "후라이": "프라이", "c타입": "usb-c", "type-c": "usb-c", "typec": "usb-c", "식스프리": "6free",
    "에어포스": "airforce", "포스": "force", "올레드": "oled", "삭스": "양말", "남자": "남성", "여자": "여성",
    "그램": "gram", "키보드": "keyboard", "마우스": "mouse", "마스터": "master", "탭": "tab",
    "드라이기": "드라이어", "슈퍼소닉": "supersonic", "순한맛": "mild", "매운맛": "spicy", "샴푸": "shampoo",
    "토너": "toner", "쿠션": "cushion", "크로스액션": "crossaction", "와이어리스": "무선", "wireless": "무선",
    "인도어": "indoor", "어덜트": "adult", "캣": "cat", "독": "dog", "팬티형": "팬티", "밴드형": "밴드",
    "무선이어폰": "이어폰", "블루투스이어폰": "이어폰", "와이파이": "wifi", "알카라인": "alkaline",
    "refill": "리필", "디카페인": "decaf", "디카페나토": "decaf", "우먼스": "여성", "womens": "여성", "맨즈": "남성",
    "mens": "남성", "콜라": "cola", "시리즈": "series", "알루미늄": "aluminum",
    "aluminium": "aluminum", "초콜릿": "초코", "초콜렛": "초코", "스파이시": "spicy", "리치": "rich",
    "크리스탈": "crystal", "에스": "s", "엑스": "x", "비타민": "vitamin", "씨": "c", "필로우": "베개", "pillow": "베개",
    "올리브유": "올리브오일", "아령": "덤벨", "dumbbell": "덤벨", "테니스볼": "테니스공", "골프볼": "골프공", "음수대": "급수기", "에지": "edge",
    "오가닉": "유기농", "organic": "유기농",
}  # fmt: skip
# Latin spellings of the same words that titles write apart (Air Force, Zero Sugar).
LATIN_COMPOUNDS: dict[str, str] = {"air force": "airforce", "play station": "playstation"}
# Phrases written several ways, in either script, for one thing: a perfume's concentration (the third blind set's
# fragrance pages: EDT, 오 드 뚜왈렛 and Eau de Toilette are one; 빠르펭 alone is a stronger concentration, not EDP).
PHRASE_SPELLINGS: dict[str, str] = {
    "eau de parfum": " edp ", "오 드 빠르펭": " edp ", "오드빠르펭": " edp ", "오 드 퍼퓸": " edp ", "오드퍼퓸": " edp ",
    "오드 퍼퓸": " edp ", "eau de toilette": " edt ", "오 드 뚜왈렛": " edt ", "오드뚜왈렛": " edt ",
    "오드 뚜왈렛": " edt ", "오 드 뚜왈레트": " edt ", "eau de cologne": " cologne ", "오 드 코롱": " cologne ",
    "코롱": " cologne ",
}  # fmt: skip
# A word that adds nothing when its partner stands in the title: Zero Sugar is Zero (제로슈거 = 제로), and a zero
# beer (하이트제로, 하이네켄 0.0: normalise reads a bare 0.0 as zero) is the non-alcoholic one.
IMPLIED_BY: dict[str, str] = {
    "sugar": "zero", "무알콜": "zero", "논알콜": "zero", "무알코올": "zero", "논알코올": "zero", "논알콜릭": "zero",
}  # fmt: skip
