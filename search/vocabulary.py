"""The words the judge's rules know: how Korean marketplace titles name brands, conditions, accessories,
colours, variants, measures, counts, flavours and lines, in Hangul and in Latin letters.

Spellings are lower case, as titles are after search.titles.normalise. Add a word when a new kind of title
shows up in the corpus (tests/search/judge_corpus/); never a word that only one title uses.
"""

from __future__ import annotations

# --- what a listing is, besides the product -----------------------------------------------------------

# Used, refurbished, display, returned or damaged units. Hangul words count anywhere in a word (중고폰,
# 리퍼비시, 전시상품); Latin ones only whole. "A급", "S급", "B급" are read by a pattern in search.titles.
CONDITION_WORDS = (
    "중고", "리퍼", "전시", "반품", "공기계", "박스훼손", "포장훼손",
    "패키지훼손", "단순개봉", "개봉상품", "개봉품", "개봉제품", "재포장", "스크래치", "찍힘", "흠집", "하자",
    "사용감", "새상품급", "테스터", "진열", "박스개봉", "used", "refurbished", "refurb", "renewed", "openbox",
)  # fmt: skip
# Words that contain a condition word but say something else (중고등학생: middle and high school pupils).
NOT_CONDITION = (
    "중고등", "미개봉", "반품불가", "반품 불가", "교환/반품", "교환 반품", "교환반품", "무료반품", "반품비", "흠집방지",
    "흠집 방지", "스크래치방지", "스크래치 방지", "테스터기", "진열대", "전시회",
)  # fmt: skip

# Accessory, part and consumable kinds: a listing naming one the product does not name is not the product.
# Hangul spellings count anywhere in a word (폰케이스), Latin ones only whole ("case", not "showcase").
ACCESSORY_KINDS: dict[str, tuple[str, ...]] = {
    "case": ("케이스", "커버", "범퍼", "파우치", "덮개", "키스킨", "case", "cover", "bumper", "pouch", "sleeve"),
    "screen film": ("필름", "강화유리", "액정보호", "보호필름", "film", "protector", "tempered"),
    "charger": ("충전기", "충전독", "어댑터", "charger", "adapter"),
    "cable": ("케이블", "젠더", "cable"),
    "holder": ("거치대", "홀더", "holder", "mount"),
    "strap": ("스트랩", "키링", "strap", "lanyard"),
    "ear tips": ("이어팁", "폼팁", "이어캡", "이어패드", "이어쿠션", "eartips"),
    "part": (
        "내솥",
        "고무패킹",
        "패킹",
        "배터리",
        "필터",
        "칫솔모",
        "브러시헤드",
        "리모컨",
        "부품",
        "리필모",
        "battery",
    ),
    # One earbud or one side of a pair, sold to replace a lost one.
    "single unit": ("왼쪽", "오른쪽", "한쪽", "좌측", "우측", "유닛"),
    "storage": ("보관통", "보관함", "밀폐용기", "수납"),
    "shoelace": ("운동화끈", "신발끈"),
    "pen": ("터치펜", "펜촉", "스타일러스", "stylus"),
    "camera gear": ("삼각대", "렌즈캡", "렌즈후드", "메모리카드", "케이지", "tripod"),
    "controller": ("컨트롤러", "게임패드", "controller"),
    "bag": ("가방", "먼지봉투", "더스트백"),
    "nozzle": ("노즐", "호스", "브러시툴"),
    "grip": ("그립톡", "손목받침", "마우스패드"),
    "cartridge": ("카트리지", "면도날", "교체날", "리필날"),
}
# A watch's own case is not an accessory: "45mm 알루미늄 케이스", "스테인리스 스틸 케이스".
NOT_ACCESSORY = ("알루미늄 케이스", "aluminum case", "스테인리스 케이스", "스테인리스 스틸 케이스", "티타늄 케이스")
# Marks of an item made for another product: "SM-R630 전용 이어팁", "V12 호환 필터", "에어팟용 케이스".
# 호환 (third-party compatible) is never the product unless the product says so; the others are fine when the
# product is itself an accessory or a part (a replacement brush head sold as 교체용 칫솔모).
COMPATIBLE_WORDS = ("호환", "compatible")
MADE_FOR_WORDS = {"전용": "전용", "교체용": "교체용", "리필": "리필", "replacement": "교체용", "refill": "리필"}
"""Each mark → its Korean spelling, so that "Refill" and "리필" are the same mark."""
# A free gift or an included item is not what the listing sells: "(+케이스 증정)", "사은품 증정".
GIFT_WORDS = ("증정", "사은품", "서비스", "포함", "제공", "선물")

# --- brands and the same word in two scripts -------------------------------------------------------------

BRAND_ALIASES: tuple[tuple[str, ...], ...] = (
    ("삼성", "삼성전자", "samsung"),
    ("애플", "apple"),
    ("lg", "엘지", "lg전자"),
    ("소니", "sony", "sie"),
    ("다이슨", "dyson"),
    ("샤오미", "xiaomi"),
    ("필립스", "philips"),
    ("쿠쿠", "쿠쿠전자", "cuckoo"),
    ("쿠첸", "cuchen"),
    ("위닉스", "winix"),
    ("코웨이", "coway"),
    ("테팔", "tefal"),
    ("해피콜", "happycall"),
    ("드롱기", "delonghi"),
    ("캐논", "canon"),
    ("니콘", "nikon"),
    ("후지필름", "fujifilm"),
    ("파나소닉", "panasonic"),
    ("화웨이", "huawei"),
    ("레노버", "lenovo"),
    ("에이수스", "asus"),
    ("로지텍", "logitech"),
    ("나이키", "nike"),
    ("아디다스", "adidas"),
    ("뉴발란스", "new balance", "newbalance"),
    ("닌텐도", "nintendo"),
    ("보스", "bose"),
    ("젠하이저", "sennheiser"),
    ("마샬", "marshall"),
    ("스피겐", "spigen"),
    ("벨킨", "belkin"),
    ("앤커", "anker"),
    ("qcy",),
    ("푸마", "puma"),
    ("듀라셀", "duracell"),
    ("에너자이저", "energizer"),
    ("크리넥스", "kleenex"),
    ("깨끗한나라",),
    ("유한킴벌리",),
    ("락앤락", "locknlock"),
    ("맥심", "maxim"),
    ("네스프레소", "nespresso"),
    ("스타벅스", "starbucks"),
    ("롬앤", "rom&nd", "romand"),
    ("클리오", "clio"),
    ("헤라", "hera"),
    ("이니스프리", "innisfree"),
    ("닥터포헤어", "dr.forhair", "drforhair"),
    ("퍼실", "persil"),
    ("다우니", "downy"),
    ("오랄비", "oral-b", "oralb"),
    ("크록스", "crocs"),
    ("컨버스", "converse"),
    ("닌자", "ninja"),
    ("앱코", "abko"),
    ("샌디스크", "sandisk"),
    ("동원", "dongwon"),
    ("사조", "sajo"),
    ("청정원",),
    ("비비고",),
    ("농심", "nongshim"),
    ("오뚜기", "ottogi"),
    ("풀무원", "pulmuone"),
    ("cj", "씨제이", "cj제일제당"),
    ("오리온", "orion"),
    ("롯데", "lotte", "롯데칠성"),
    ("펩시", "pepsi"),
    ("코카콜라", "coca-cola", "cocacola", "coca cola"),
    ("라운드랩", "round lab", "roundlab"),
    ("하기스", "huggies"),
    ("팸퍼스", "pampers"),
    ("몽드드", "mongdies"),
    ("anf", "에이엔에프"),
    ("뉴트로", "nutro"),
    ("로얄캐닌", "royal canin", "royalcanin"),
)
# Product lines only one brand sells: naming the line names the brand (a title may leave the brand out).
BRAND_LINES: dict[str, tuple[str, ...]] = {
    "삼성": ("galaxy", "비스포크", "bespoke"),
    "애플": ("iphone", "airpods", "macbook", "ipad", "imac"),
    "소니": ("playstation", "ps5", "ps4", "플스"),
    "다이슨": ("v8", "v10", "v11", "v12", "v15"),
    "농심": ("신라면", "짜파게티", "안성탕면", "너구리", "새우깡"),
    "필립스": ("소닉케어", "sonicare"),
    "맥심": ("카누", "kanu", "모카골드", "화이트골드"),
    "lg": ("그램", "gram", "트롬", "스타일러", "퓨리케어", "코드제로", "올레드 evo"),
    "오뚜기": ("진라면", "진짬뽕", "열라면"),
    "cj": ("햇반", "스팸"),
    "유한킴벌리": ("하기스",),
    "오랄비": ("io",),
}

# One spelling per word for the rules: a Hangul spelling is compared as its Latin one (and spelling variants
# as the usual spelling). Used for brands and common product words, whole or inside a glued word.
TRANSLITERATIONS: dict[str, str] = {
    "갤럭시": "galaxy", "플레이스테이션": "playstation", "블루투스": "bluetooth", "에어팟": "airpods",
    "버즈": "buds", "아이폰": "iphone", "아이패드": "ipad", "맥북": "macbook", "아이맥": "imac",
    "에디션": "edition", "디스크": "disc", "디지털": "digital", "프로": "pro", "워치": "watch", "북": "book",
    "울트라": "ultra", "플러스": "plus", "맥스": "max", "미니": "mini", "라이트": "lite", "슬림": "slim",
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
}  # fmt: skip
# Latin spellings of the same words that titles write apart (Air Force, Zero Sugar).
LATIN_COMPOUNDS: dict[str, str] = {"air force": "airforce", "play station": "playstation"}

# --- what distinguishes one product from its neighbours -------------------------------------------------

# Variant words (iPhone 15 vs 15 Pro, Buds2 vs Buds2 FE): a different set is a different product. "mini" only
# counts when the title has it and the product does not: shops also write 미니 as a plain adjective.
VARIANTS: dict[str, tuple[str, ...]] = {
    "pro": ("pro",),
    "max": ("max",),
    "plus": ("plus",),
    "ultra": ("ultra",),
    "mini": ("mini",),
    "se": ("se",),
    "fe": ("fe",),
    "edge": ("edge",),
    "regular": ("regular",),
}
# Counted only when the title names it and the product does not: shops use 미니 as a plain adjective, and 레귤러
# (the full size beside a mini) is left out of most titles of the regular product.
ONE_SIDED_VARIANTS = frozenset({"mini", "regular"})

# Flavours, lines and editions: a listing that names one the product does not is another product (펩시 제로
# 라임 for 펩시 제로); one the product names and the listing lacks leaves it unsure.
LINE_WORDS = (
    "lime", "lemon", "mango", "cherry", "복숭아", "피치", "자몽", "딸기", "바닐라", "초코", "녹차", "말차", "포도",
    "청포도", "사과", "유자", "오렌지", "파인애플", "블루베리", "spicy", "mild", "치즈", "카레", "짜장", "불닭",
    "zero", "무설탕", "decaf", "바나나", "메론", "멜론", "수박", "키위", "코코넛", "카라멜", "캐러멜", "쑥", "고구마",
    "옥수수", "양파", "마늘", "새우", "해물", "김치", "불고기", "갈비", "짬뽕", "짜파", "툼바", "로제", "까르보",
    "마라", "트러플", "할라피뇨", "청양", "와사비", "허니", "갈릭", "어니언", "솔트", "저염", "저당", "무가당",
    "무첨가", "유기농", "오가닉", "비건", "무알콜", "논알콜", "스파클링", "헤어볼", "다이어트", "주니어",
    "아동", "여성", "시트러스", "플로럴", "머스크", "무향", "유칼립투스", "피톤치드", "스페셜", "한정판",
    "리미티드", "콜라보", "rich", "흑미", "현미", "잡곡", "오곡", "귀리", "곤약", "digital", "disc", "slim",
    "origin", "키튼", "시니어", "adult", "퍼피", "건면", "lite", "mac", "렌즈킷", "kit",
    # An edition or bundle sold as its own product (크리에이터 에디션, 번들 패키지): what it adds is what is sold.
    "edition", "bundle", "번들", "패키지", "콤보", "combo", "isolate", "아이솔레이트", "gore-tex", "고어텍스",
)  # fmt: skip

COLOURS: dict[str, tuple[str, ...]] = {
    "black": ("블랙", "검정", "검정색", "검은색", "black", "오닉스"),
    "white": ("화이트", "흰색", "하얀색", "white", "올백"),
    "silver": ("실버", "은색", "silver"),
    "gray": ("그레이", "회색", "gray", "grey"),
    "blue": ("블루", "파랑", "파란색", "청색", "blue"),
    "navy": ("네이비", "남색", "navy"),
    "red": ("레드", "빨강", "빨간색", "red"),
    "pink": ("핑크", "분홍", "분홍색", "pink"),
    "gold": ("골드", "금색", "gold"),
    "rose gold": ("로즈골드", "rosegold"),
    "green": ("그린", "초록", "초록색", "녹색", "green"),
    "mint": ("민트", "mint"),
    "purple": ("퍼플", "보라", "보라색", "바이올렛", "purple", "violet"),
    "lavender": ("라벤더", "lavender"),
    "yellow": ("옐로우", "옐로", "노랑", "노란색", "yellow"),
    "orange": ("주황", "주황색"),
    "beige": ("베이지", "beige"),
    "brown": ("브라운", "갈색", "brown"),
    "ivory": ("아이보리", "ivory"),
    "graphite": ("그라파이트", "그래파이트", "graphite"),
    "midnight": ("미드나이트", "midnight"),
    "starlight": ("스타라이트", "starlight"),
    "natural": ("내추럴", "네추럴", "내츄럴", "natural"),
    "nickel": ("니켈", "nickel"),
    "cream": ("크림", "cream"),
    "turquoise": ("터콰이즈", "turquoise"),
}
COLOUR_SUFFIXES = ("", "색", "색상", "컬러")
# Words that only qualify a colour (블랙 티타늄, 스페이스 그레이): not part of what identifies the product.
COLOUR_QUALIFIERS = frozenset(
    {"티타늄", "titanium", "스페이스", "space", "메탈", "metal", "매트", "matte", "펄", "pearl", "딥", "deep"}
    | {"다크", "dark", "문스톤", "플래티넘", "시에라", "트리플"}
)

# Measures compared between product and title; each unit is scaled to its dimension's base unit.
MEASURE_UNITS: dict[str, tuple[str, float]] = {
    "tb": ("storage", 1024),
    "gb": ("storage", 1),
    "기가": ("storage", 1),
    "테라": ("storage", 1024),
    "ml": ("volume", 1),
    "l": ("volume", 1000),
    "리터": ("volume", 1000),
    "kg": ("weight", 1000),
    "g": ("weight", 1),
    "그램": ("weight", 1),
    "mg": ("weight", 0.001),
    "인치": ("screen size", 1),
    "inch": ("screen size", 1),
    "mm": ("length", 1),
    "cm": ("length", 10),
    "m": ("length", 1000),
    "w": ("power", 1),
    "kw": ("power", 1000),
    "mah": ("battery", 1),
    "hz": ("refresh rate", 1),
    "인용": ("servings", 1),
    "인분": ("servings", 1),
    "단계": ("stage", 1),
    "gen": ("generation", 1),
    "겹": ("ply", 1),
}
# Counting words: "5개입", "24캔", "100매", "40봉", "30구". Any of them may carry 입 ("100매입", "40봉입").
COUNT_UNITS = (
    "개입", "개", "팩", "입", "병", "캔", "봉지", "봉", "포", "세트", "박스", "box", "롤", "매", "장",
    "켤레", "족", "알", "정", "캡슐", "스틱", "구", "종", "묶음", "펫", "ea", "pcs", "pc", "p", "t", "pet", "pack",
)  # fmt: skip
# Units a Korean title may glue to the next word ("3겹화장지", "6인용밥솥", "30롤입"): no other word starts
# with them, so they count even when a Hangul word follows.
GLUED_UNITS = ("겹", "인용", "인분", "단계", "세대", "롤", "캔", "켤레", "개입", "매입")
# Units that only count after a larger number: "180T" is 180 sticks, "1080p" a resolution, "5t" a truck.
SMALL_UNITS_MIN = {"t": 10}
LARGE_UNITS_MAX = {"p": 99}
# Mobile network generations read like weights ("5G"); they are not.
NOT_WEIGHTS = frozenset({"3g", "4g", "5g"})
# Ratings written with + that are not the "plus" variant (SPF50+, PA++++).
RATING_NOTATIONS = r"spf\s*\d+\+*|pa\+{1,4}"

STOP_WORDS = frozenset(
    {"정품", "국내정품", "공식", "새상품", "새제품", "신상품", "최신형", "무료배송", "당일발송", "당일출고", "빠른배송"}
    | {"로켓배송", "특가", "본사직영", "국내", "미사용", "본체", "기본", "공식판매", "정식발매", "모델", "본품", "단품"}
    | {"세트", "기획", "기획세트", "구성"}
)

# What a product is (its kind) and plain descriptions of it: a title may leave them out ("로얄캐닌 인도어 어덜트
# 2kg" for "… 고양이 사료 2kg") as long as it names no other kind (궁중팬 for 프라이팬).
KIND_WORDS = frozenset(
    {
        "사료", "건사료", "습식사료", "간식", "고양이", "강아지", "샴푸", "린스", "컨디셔너", "트리트먼트", "바디워시",
        "로션", "크림", "선크림", "세럼", "앰플", "에센스", "toner", "스킨", "cushion", "파운데이션", "틴트", "립스틱",
        "이어폰", "헤드폰", "헤드셋", "스피커", "keyboard", "mouse", "모니터", "노트북", "태블릿", "스마트폰", "휴대폰",
        "청소기", "무선청소기", "로봇청소기", "드라이어", "헤어드라이어", "공기청정기", "가습기", "제습기", "선풍기",
        "전기포트", "전기주전자", "커피머신", "에어프라이어", "전자레인지", "밥솥", "전기밥솥", "압력밥솥",
        "전기압력밥솥", "프라이팬", "궁중팬", "웍", "냄비", "편수냄비", "양수냄비", "전골냄비", "칼", "도마",
        "밀폐용기",
        "전동칫솔", "칫솔", "칫솔모", "치약", "건전지", "배터리", "화장지", "휴지", "물티슈", "키친타월", "세제",
        "액체세제", "세탁세제", "섬유유연제", "기저귀", "양말", "운동화", "스니커즈", "슬리퍼", "샌들", "클로그",
        "티셔츠", "라면", "생수", "커피", "커피믹스", "캡슐", "참치", "즉석밥", "콜라", "사이다", "탄산음료", "카메라",
        "미러리스", "렌즈", "게임기", "콘솔", "필터", "tv", "텔레비전",
        "선스틱", "스틱", "정수기", "음료", "과자", "스낵", "밥",
        "분유", "우유", "두유", "요거트", "요구르트", "주스", "프로틴", "단백질", "보충제", "시리얼", "견과", "영양제",
        "세탁캡슐", "캡슐세제", "면도기", "전기면도기", "액션캠", "캠코더", "배변패드", "패드", "립밤", "향수",
        "러닝화", "등산화", "구두", "부츠", "가방", "백팩", "지갑", "shoes", "sneakers",
    }
)  # fmt: skip
PLAIN_WORDS = frozenset({"무선", "유선", "블루투스", "bluetooth", "공용", "남여공용", "남녀공용", "용기", "코드리스"})
"""Plain descriptions a title may leave out, which never name another kind of product."""
