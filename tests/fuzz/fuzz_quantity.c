/*
 * libFuzzer target for vc_quantity: any bytes either fail to parse cleanly or parse to a value
 * whose String() form parses back to the same value (and prints stably from then on).
 */
#include "vc_prelude.h"

#include "vc_err.h"
#include "vc_quantity.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct vc_quantity q, back, sum;
	struct vc_error err;
	char text[VC_QUANTITY_STR_MAX], again[VC_QUANTITY_STR_MAX];
	int64_t v;

	if (size > 4096)
		return 0;
	if (vc_quantity_parsen((const char *)data, size, &q, &err) != 0) {
		if (err.code != VC_EPARSE && err.code != VC_ERANGE)
			abort();
		return 0;
	}
	if (vc_quantity_format(&q, text, sizeof(text)) != 0)
		abort();
	if (vc_quantity_parse(text, &back, &err) != 0)
		abort();
	if (vc_quantity_cmp(&q, &back) != 0)
		abort();
	/*
	 * The printed form settles after one more round. Not at once: as in Kubernetes, a BinarySI
	 * value without an exact suffix prints as plain digits ("60062.5Ki" -> "61504000"), which
	 * read back as DecimalSI and print as "61504k" from then on.
	 */
	{
		struct vc_quantity third;
		char last[VC_QUANTITY_STR_MAX];

		if (vc_quantity_format(&back, again, sizeof(again)) != 0 ||
		    vc_quantity_parse(again, &third, &err) != 0 ||
		    vc_quantity_cmp(&third, &q) != 0 ||
		    vc_quantity_format(&third, last, sizeof(last)) != 0 || strcmp(again, last) != 0)
			abort();
	}
	/* The accessors and arithmetic stay defined on every parsed value. */
	(void)vc_quantity_value(&q);
	(void)vc_quantity_milli_value(&q);
	(void)vc_quantity_as_double(&q);
	if (vc_quantity_scaled_value(&q, (int)(size % 41) - 20, &v) != 0 && v != INT64_MAX &&
	    v != INT64_MIN)
		abort();
	sum = q;
	if (vc_quantity_add(&sum, &back) == 0) {
		if (vc_quantity_sub(&sum, &back) != 0 || vc_quantity_cmp(&sum, &q) != 0)
			abort();
	}
	vc_quantity_neg(&sum);
	if (vc_quantity_format(&sum, again, sizeof(again)) != 0)
		abort();
	return 0;
}
