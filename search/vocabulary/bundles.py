"""Sets and bundles that add another product or a second machine the shop did not ask for (rule: set and bundle).

Where the words come from: how Korean titles write a set (A + B 세트, 세트구성, 패키지) and count machines
(2대, 2대세트: 대 counts machines, vehicles and devices). SPEC §4 step 3: a set or bundle is not a price of the
product; a free gift (+케이스 증정) is read as a gift first and does not make a set.
"""

from __future__ import annotations

BUNDLE_WORDS = ("세트구성", "패키지구성", "합본", "더블팩", "듀오세트", "트리오", "동시구매", "함께구매", "결합상품")
"""Words that mark a set of several products."""
MACHINE_COUNTERS = ("대",)
"""Counters of machines: "2대" sells two units of the machine."""
SERVICE_WORDS = ("작업", "서비스", "설치", "시공", "조립", "각인", "포장", "무료")
"""Work the shop does on the product itself, after a plus sign ("+ 스트링 작업", "+ 각인 서비스", "+ 조립"): not a
second product. From sellers' titles of rackets, furniture, jewellery and gifts."""
KIT_WORDS = ("키트", "kit", "스타터", "starter", "구성품", "풀세트", "패키지")
"""Words naming a product that is itself a kit: a title listing what is in it (용기 + 리필 5포 for a starter kit) names
its contents, not a refill sold for it."""
GARMENT_CAPACITY_PLUS = ("바지",)
"""What a clothing-care machine holds beside its garments (스타일러 5벌+바지, 에어드레서 3벌+바지1벌): its
capacity, after a count of 벌, not a second product."""
