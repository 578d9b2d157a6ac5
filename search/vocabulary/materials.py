"""What a product is made of: a title may leave it out, and one that names another material sells another product.

Where the words come from: the material facet (소재) of Korean marketplaces' fashion, furniture, kitchen and
household categories. A material the product does not state is a plain description (a belt's leather, a shelf's
steel); one in place of the product's own (스웨이드 for 가죽, 원목 for 스틸) is another product at best unsure.
One spelling per material: the words of a group are one material written several ways.
"""

from __future__ import annotations

MATERIALS: dict[str, frozenset[str]] = {
    "leather": frozenset({"가죽", "소가죽", "천연가죽", "통가죽", "레더", "leather"}),
    "faux leather": frozenset({"인조가죽", "pu", "합성가죽", "비건레더"}),
    "suede": frozenset({"스웨이드", "suede"}),
    "steel": frozenset({"철제", "스틸", "steel", "강철"}),
    "stainless": frozenset({"스테인리스", "스텐", "stainless", "스테인레스"}),
    "aluminium": frozenset({"알루미늄", "aluminum", "aluminium"}),
    "titanium": frozenset({"티타늄", "titanium"}),
    "wood": frozenset({"원목", "우드", "wood", "wooden"}),
    "bamboo": frozenset({"대나무", "bamboo"}),
    "latex": frozenset({"라텍스", "latex"}),
    "silicone": frozenset({"실리콘", "silicone"}),
    "glass": frozenset({"유리", "강화유리"}),
    "ceramic": frozenset({"세라믹", "도자기", "ceramic", "porcelain"}),
    "plastic": frozenset({"플라스틱", "plastic"}),
    "paper": frozenset({"종이", "paper"}),
    "linen": frozenset({"린넨", "리넨", "linen"}),
    "wool": frozenset({"울", "wool", "양모"}),
    "cashmere": frozenset({"캐시미어", "cashmere"}),
    "nylon": frozenset({"나일론", "nylon"}),
    "polyester": frozenset({"폴리에스터", "polyester"}),
    "cast iron": frozenset({"무쇠", "주물"}),
    "brass": frozenset({"황동", "brass"}),
    "acrylic": frozenset({"아크릴", "acrylic"}),
    "fabric": frozenset({"파인우븐", "finewoven", "패브릭", "fabric"}),
    "cotton": frozenset({"순면", "코튼", "cotton"}),
}  # fmt: skip
MATERIAL_OF = {spelling: material for material, spellings in MATERIALS.items() for spelling in spellings}
"""A material word → the material it names."""
