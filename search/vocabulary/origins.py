"""Where a food was grown or made, as titles label it (rule: variant and line).

Where the words come from: the 원산지 (country of origin) labels Korean food listings carry (국내산, 국산콩, 중국산,
수입산, 미국산 …). Domestic produce and its imported look-alike are two products at two prices: a title naming
another origin than the product's is not the product.
"""

from __future__ import annotations

ORIGINS: dict[str, str] = {
    "국내산": "korea", "국산": "korea", "한국산": "korea",
    "중국산": "china", "미국산": "usa", "호주산": "australia", "뉴질랜드산": "new zealand", "칠레산": "chile",
    "베트남산": "vietnam", "캐나다산": "canada", "태국산": "thailand", "페루산": "peru", "브라질산": "brazil",
    "스페인산": "spain", "멕시코산": "mexico", "일본산": "japan", "필리핀산": "philippines", "인도산": "india",
    "러시아산": "russia", "노르웨이산": "norway", "덴마크산": "denmark", "독일산": "germany",
    "이탈리아산": "italy", "프랑스산": "france", "아르헨티나산": "argentina", "미얀마산": "myanmar",
    "수입산": "imported", "외국산": "imported",
}  # fmt: skip
"""Each origin label and the country it names; "imported" is any country but Korea."""
