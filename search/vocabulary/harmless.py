"""Words a listing may carry beyond the product that say nothing against it (rule: unexplained extra words).

Where the words come from: seller tags, shipping and genuineness marks Korean marketplaces show in titles
([당일발송], 무료배송, 정품, 국내정발, 공식판매처), the kind words of the corpus's categories (what a product is:
이어폰, 샴푸, 사료), and plain descriptions that never name another product.
"""

from __future__ import annotations

STOP_WORDS = frozenset(
    {"정품", "국내정품", "공식", "새상품", "새제품", "신상품", "최신형", "무료배송", "당일발송", "당일출고", "빠른배송"}
    | {"신품"}  # 新品, a new unit: 새상품 in Sino-Korean
    | {"로켓배송", "특가", "본사직영", "국내", "미사용", "본체", "기본", "공식판매", "정식발매", "모델", "본품", "단품"}
    | {"세트", "기획", "기획세트", "구성"}
    # Latin particles inside names (Bleu de Chanel, Wood Sage and Sea Salt): they tell nothing apart. Not 앤: it
    # glues a flavour together (쿠키앤크림).
    | {"de", "du", "la", "le", "of", "the", "and", "et"}
)

PLAIN_WORDS = frozenset({"무선", "유선", "블루투스", "bluetooth", "공용", "남여공용", "남녀공용", "용기", "코드리스"})
"""Plain descriptions a title may leave out, which never name another kind of product."""

# Seller tags, shipping and genuineness marks: what the shop says about the sale, never about the product.
SELLER_WORDS = frozenset(
    {
        # The marketplace's option picker written into the title ("옵션: 무향 56g x 2개"): what follows is read as
        # option text after a comma is; the mark itself says nothing. Not 풀옵션, a configuration.
        "옵션",
        "옵션선택",
        "국내정발",
        "정발",
        "국내발송",
        "한국정품",
        "정식수입",
        "정식수입품",
        "병행수입",
        "공식판매처",
        "공식대리점",
        "공식몰",
    }
    | {"공식스토어", "판매처", "본사", "직영", "정품인증", "정품보장", "당일배송", "익일배송", "오늘출발", "오늘출고"}
    | {"즉시출고", "즉시발송", "빠른출고", "무료설치", "설치", "배송", "무료", "택배", "로켓", "로켓와우", "와우"}
    | {"특가", "할인", "세일", "최저가", "초특가", "핫딜", "행사", "이벤트", "한정", "인기", "추천", "best"}
    | {"신제품", "신형", "최신", "new", "신상", "2023", "2024", "2025", "2026", "년형", "출시", "정품등록", "as"}
    | {"가능", "보증", "무상", "1년", "국내as", "kc인증", "인증", "kc", "쿠팡", "단독", "상품", "제품", "스토어"}
    | {"순정", "순정품", "풀구성", "풀박스", "미개봉", "무결점", "정식", "정식발매", "국내정식발매", "코리아", "korea"}
    | {
        "공식파트너",
        "공식수입",
        "공식수입원",
        "수입원",
        "일시불",
        "베어툴",
        "본체만",
        "단품",
        "해외직구",
        "직구",
        "구매대행",
    }
    | {"압축배송", "박스포장", "개별포장", "낱개", "사이즈", "size", "자급제", "자급제폰", "언락", "unlocked"}
    # Shipping, stock and sale words of any marketplace listing, whatever it sells.
    | {"국내배송", "재고보유", "무료반품", "무배", "한정수량", "타임특가", "정가", "sale", "hot", "히트"}
    | {"수입정품", "본사정품", "총판", "관부가세", "관부가세포함", "포함"}
    # Where it was bought and how it is wrapped: a department-store unit with its bag is the same new unit.
    | {"백화점", "백화점정품", "쇼핑백", "선물포장", "코스트코", "이마트", "트레이더스"}
)
# Notices that leave a unit new (a near best-before date is still a new unit of the product).
# What follows a maker's name in its company name (LG전자, 광동제약, 웅진식품): the maker, not another product.
CORPORATE_WORDS = frozenset(
    {
        "전자",
        "제약",
        "식품",
        "유업",
        "음료",
        "제일제당",
        "주식회사",
        "코퍼레이션",
        "제과",
        "의료기",
        "산업",
        "화학",
        "생활건강",
    }
)
# What a product is used for, when and by whom, and how it is built: the marketplaces' filter facets (용도, 계절,
# 대상, 형태). They describe the product; they never name another one.
USAGE_WORDS = frozenset(
    {"기내용", "화물용", "여행용", "동계", "하계", "사계절", "3계절", "4계절", "신생아", "유아", "아동", "성인"}
    | {"회전형", "팔뚝형", "손목형", "머미형", "사각형", "확장형", "일체형", "분리형", "접이식", "휴대형", "거치형"}
    | {"전신", "일반용량", "기가", "기가비트", "코팅", "coated", "어쿠스틱", "acoustic", "오토매틱", "automatic"}
    | {"자동", "기계식", "쿼츠", "quartz", "라이선스", "공식라이선스", "licensed", "히트싱크", "heatsink"}
    | {"nvme", "pcie", "m.2", "exp", "expandable", "익스펜더블"}
)
NOTICE_WORDS = frozenset({"유통기한", "소비기한", "임박", "까지", "유통기한임박", "소비기한임박", "제조", "제조일"})
# How the product is packed, not what it is: a multipack of the counted units, a refill pack of a refill.
PACKAGING_WORDS = frozenset(
    {"멀티팩", "묶음", "묶음상품", "벌크", "박스", "box", "대용량", "소용량", "리필팩", "파우치형", "용기형", "번들팩"}
    | {"파우치"}  # a food's pouch pack; a pouch for a device is an accessory (accessories.py) and read before
)
# The base line a title may name when the product names none: 펩시 콜라 오리지널 is 펩시콜라.
DEFAULT_LINE_WORDS = frozenset({"original", "오리지날", "regular", "기본형", "스탠다드", "standard"})
# Plain descriptions that praise or describe a product without naming another one (a machine's features, a
# garment's fit): they make a verdict unsure only with an LLM to ask, never a different product by themselves.
DESCRIPTORS = frozenset(
    {"고양이", "강아지", "반려견", "반려묘", "애견", "애묘", "펫", "fit", "핏", "자가설치", "방문설치", "설치비별도"}
    | {
        "냉장",
        "냉동",
        "선물세트",
        "선물포장",
        "장착비별도",
        "무료장착",
        "출장장착",
        "자가관리",
        "자가관리형",
        "방문관리",
        "방문관리형",
    }
    | {"브러시리스", "브러쉬리스", "brushless", "무쇠", "주물", "스테인리스", "스텐", "원목", "순면", "면", "cotton"}
    | {
        "노이즈캔슬링",
        "노캔",
        "저소음",
        "고속",
        "초고속",
        "급속",
        "휴대용",
        "가정용",
        "업소용",
        "사무용",
        "가정",
        "스마트",
    }
    | {
        "smart",
        "포터블",
        "portable",
        "게이밍",
        "gaming",
        "커브드",
        "curved",
        "초경량",
        "경량",
        "슬림형",
        "대형",
        "소형",
    }
    | {"고성능", "고화질", "초고화질", "uhd", "fhd", "qhd", "hd", "4k", "8k", "hdr", "led", "lcd", "oled", "ips", "va"}
    | {
        "와이드",
        "wide",
        "프리미엄",
        "premium",
        "데일리",
        "daily",
        "심플",
        "베이직",
        "basic",
        "캐주얼",
        "남녀",
        "유니섹스",
    }
    | {
        "남성용",
        "여성용",
        "성인용",
        "남성",
        "여성",
        "남자",
        "여자",
        "공용",
        "unisex",
    }
    | {"보습", "수분", "촉촉", "진정", "저자극", "순한", "약산성", "천연", "국산", "국내산", "수입", "신선", "간편"}
    | {
        "맛있는",
        "고소한",
        "건강한",
        "든든한",
        "자연",
        "프레시",
        "fresh",
        "깔끔한",
        "부드러운",
        "튼튼한",
        "편한",
        "편안한",
    }
    | {"고급", "명품", "선물", "선물용", "선물세트용", "답례품", "홈", "home", "오피스", "office", "캠핑", "camping"}
    | {"차량용", "겸용", "다용도", "멀티", "multi", "올인원", "all", "in", "one", "with", "and", "the", "for", "of"}
    | {
        "ai",
        "인공지능",
        "wifi",
        "와이파이",
        "wi-fi",
        "usb",
        "usb-c",
        "c타입",
        "type",
        "타입",
        "방수",
        "생활방수",
        "무소음",
        "저전력",
    }
    # a computer's parts and system, a keyboard's lights: specifications, not another product
    | {"인텔", "intel", "라이젠", "ryzen", "윈도우", "windows", "홈", "칩", "cpu", "gpu", "램", "ram"}
    | {"백라이트", "backlight", "퍼포먼스", "performance", "고주사율", "광시야각", "무선충전", "고속충전"}
    # claims of functional cosmetics (기능성 화장품) as the Korean regulator names them
    | {"기능성", "탈모증상완화", "탈모완화", "미백", "주름개선", "자외선차단", "미백기능성", "주름기능성"}
)
