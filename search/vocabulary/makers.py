"""Makers and the line brands they sell under (rules: other brand and look-alike, identity).

Where the words come from: Korean food, drink and household makers whose goods are sold under a line brand of
their own, and whose name sellers put beside that line brand (CJ제일제당 고메, 동아오츠카 포카리스웨트, 웅진 티즐).
A maker named beside its line brand is not another brand; a line brand named without its maker names the maker.
Each entry is (the maker's spellings, its line brands). A line brand that is a brand group of its own
(brands.py: 비비고) stays one: another line of our maker is still another product.
"""

from __future__ import annotations

MAKERS: tuple[tuple[tuple[str, ...], tuple[str, ...]], ...] = (
    (("cj", "씨제이", "cj제일제당", "제일제당"), ("해찬들", "고메", "백설", "다시다", "햇반", "스팸")),
    (("동아오츠카",), ("포카리스웨트", "포카리", "데미소다", "오로나민c")),
    (("웅진", "웅진식품"), ("티즐", "하늘보리", "아침햇살")),
    (("광동", "광동제약"), ("비타500", "헛개차")),
    (("매일유업",), ("아몬드브리즈", "상하목장")),
    (("동서식품",), ("맥심", "카누", "포스트")),
    (("롯데칠성", "롯데칠성음료"), ("칠성사이다", "펩시", "트레비", "밀키스")),
    (("롯데", "롯데제과", "롯데웰푸드"), ("빼빼로", "꼬깔콘", "칸쵸", "가나", "몽쉘")),
    (("오리온",), ("초코파이", "포카칩", "꼬북칩", "오징어땅콩")),
    (("동원", "동원f&b", "동원에프앤비"), ("덴마크", "양반", "리챔", "개성")),
    (("깨끗한나라",), ("보솜이", "순수한면")),
    (("하이트진로",), ("하이트", "테라", "켈리", "참이슬")),
)
