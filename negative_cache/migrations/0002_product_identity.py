# Key the negative cache by the product's identity (normalised name, model code, brand) instead of the client's
# product_code, and keep on each row what it was remembered for.
#
# Existing rows: "query:<name>" rows become the identity of that name (model code and brand unknown, so empty).
# "code:<product_code>" rows become the identity of the product with that code in search_product when there is
# one; the rest are dropped. Nothing of value is lost: a row lives at most 24 hours (LPS_NEGATIVE_CACHE_TTL_SECONDS)
# and a dropped one only means that product is searched once more.

import hashlib
import json
import re
import unicodedata

from django.db import migrations, models

_SPACES = re.compile(r"\s+")


# Frozen copies of negative_cache.cache.normalise_query and key_for as of this migration.
def _normalise(text):
    folded = unicodedata.normalize("NFKC", text).casefold()
    visible = "".join(char for char in folded if unicodedata.category(char) != "Cf")
    return _SPACES.sub(" ", visible).strip()


def _key(name, model_code, brand):
    identity = (_normalise(name), _normalise(model_code or ""), _normalise(brand or ""))
    return "product:" + hashlib.sha256(json.dumps(identity, ensure_ascii=False).encode()).hexdigest()


def rekey(apps, schema_editor):
    entry_model = apps.get_model("negative_cache", "NegativeCacheEntry")
    product_model = apps.get_model("search", "Product")
    rekeyed = {}
    old_keys = []
    for entry in entry_model.objects.filter(models.Q(key__startswith="query:") | models.Q(key__startswith="code:")):
        old_keys.append(entry.key)
        if entry.key.startswith("query:"):
            name, model_code, brand = entry.key.removeprefix("query:"), "", ""
        else:
            product = (
                product_model.objects.filter(product_code=entry.key.removeprefix("code:"))
                .order_by(models.F("last_searched_at").desc(nulls_last=True))
                .first()
            )
            if product is None:
                continue
            name, model_code, brand = product.product_name, product.model_code, product.brand
        key = _key(name, model_code, brand)
        # Two old rows of one product keep the later expiry.
        if key not in rekeyed or rekeyed[key].until < entry.until:
            rekeyed[key] = entry_model(
                key=key,
                until=entry.until,
                reason=entry.reason,
                created_at=entry.created_at,
                product_name=name[:500],
                model_code=model_code[:200],
                brand=brand[:200],
            )
    entry_model.objects.filter(key__in=old_keys).delete()
    entry_model.objects.bulk_create(rekeyed.values(), ignore_conflicts=True)


class Migration(migrations.Migration):
    dependencies = [
        ("negative_cache", "0001_initial"),
        ("search", "0002_product_per_client"),
    ]

    operations = [
        migrations.AddField(
            model_name="negativecacheentry",
            name="product_name",
            field=models.CharField(blank=True, default="", max_length=500),
        ),
        migrations.AddField(
            model_name="negativecacheentry",
            name="model_code",
            field=models.CharField(blank=True, default="", max_length=200),
        ),
        migrations.AddField(
            model_name="negativecacheentry",
            name="brand",
            field=models.CharField(blank=True, default="", max_length=200),
        ),
        migrations.RunPython(rekey, migrations.RunPython.noop),
    ]
