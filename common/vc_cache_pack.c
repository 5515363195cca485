/*
 * vc_cache_pack.c - the compression of a packed cache's serializations (vc_cache.c): raw deflate
 * with a preset dictionary of what Kubernetes and Volcano objects say again and again (field
 * names, label and annotation keys, defaults), so that an object of 1-2 KB of JSON is kept in a
 * third of that. 10,000 pods of the Job controller's bench held ~17 MB of serializations, the
 * largest part of vc-controller's heap after a pod storm (bench/README.md, "Memory after the pod
 * storm", fourth pass).
 *
 * Each thread keeps its own streams (made on its first use, freed when it ends: a pthread key's
 * destructor): a deflate stream primed with the dictionary, copied for each object (setting the
 * dictionary hashes all of it: 27 of 38 us per pod, against 4 us for the copy), and an inflate
 * stream reset for each object. The output depends on the input bytes alone: equal
 * serializations compress to equal bytes.
 */
#include "vc_cache_internal.h"

#include <zlib.h>

#include "vc_alloc.h"

/*
 * Raw deflate (no zlib header or checksum: the cache's own bytes) with a 4 KB window: objects are
 * small, and the window bounds each stream's memory (~25 KB for both with memLevel 4).
 */
#define PACK_WBITS    (-12)
#define PACK_MEMLEVEL 4

/*
 * The preset dictionary: strings that every pod, Volcano Job or PodGroup repeats, the most frequent
 * last (deflate reaches the end of the dictionary with the shortest distances).
 */
static const char pack_dict[] =
	"\"terminationMessagePath\":\"/dev/termination-log\",\"terminationMessagePolicy\":\"File\","
	"\"imagePullPolicy\":\"IfNotPresent\",\"dnsPolicy\":\"ClusterFirst\","
	"\"enableServiceLinks\":true,\"securityContext\":{},\"terminationGracePeriodSeconds\":30,"
	"\"serviceAccountName\":\"default\",\"serviceAccount\":\"default\","
	"\"volumeMounts\":[{\"mountPath\":\"/var/run/secrets/kubernetes.io/serviceaccount\","
	"\"readOnly\":true}],\"hostIP\":\"\",\"podIP\":\"\",\"startTime\":\""
	"\"minAvailable\":1,\"maxRetry\":3,\"queue\":\"default\",\"tasks\":[{\"name\":\""
	"\"replicas\":1,\"template\":{\"metadata\":{},\"spec\":{\"policies\":[{\"event\":\""
	"\"state\":{\"phase\":\"Pending\",\"lastTransitionTime\":\"\"},\"retryCount\":0,"
	"\"minMember\":1,\"minResources\":{\"cpu\":\"\",\"memory\":\"\"},\"running\":0,"
	"\"succeeded\":0,\"failed\":0,\"pending\":0,\"version\":0,\"taskStatusCount\":{"
	"\"apiVersion\":\"batch.volcano.sh/v1alpha1\",\"kind\":\"Job\","
	"\"apiVersion\":\"scheduling.volcano.sh/v1beta1\",\"kind\":\"PodGroup\","
	"\"conditions\":[{\"type\":\"PodScheduled\",\"status\":\"False\",\"lastProbeTime\":null,"
	"\"lastTransitionTime\":\"2026-01-01T00:00:00Z\",\"reason\":\"Unschedulable\",\"message\":\""
	"0/0 nodes are unavailable: \",\"transitionID\":\"\"}],\"qosClass\":\"Burstable\","
	"\"tolerations\":[{\"key\":\"node.kubernetes.io/not-ready\",\"operator\":\"Exists\","
	"\"effect\":\"NoExecute\",\"tolerationSeconds\":300},{\"key\":\"node.kubernetes.io/"
	"unreachable\",\"operator\":\"Exists\",\"effect\":\"NoExecute\",\"tolerationSeconds\":300}],"
	"\"priority\":0,\"preemptionPolicy\":\"PreemptLowerPriority\",\"schedulerName\":\"volcano\","
	"\"restartPolicy\":\"Never\",\"containers\":[{\"name\":\"\",\"image\":\"\",\"resources\":{"
	"\"limits\":{\"cpu\":\"\",\"memory\":\"\"},\"requests\":{\"cpu\":\"\",\"memory\":\"\"}}}],"
	"\"ownerReferences\":[{\"apiVersion\":\"batch.volcano.sh/v1alpha1\",\"kind\":\"Job\","
	"\"name\":\"\",\"uid\":\"\",\"controller\":true,\"blockOwnerDeletion\":true}]},"
	"\"annotations\":{\"scheduling.k8s.io/group-name\":\"\",\"volcano.sh/job-name\":\"\","
	"\"volcano.sh/job-version\":\"0\",\"volcano.sh/queue-name\":\"default\","
	"\"volcano.sh/task-index\":\"0\",\"volcano.sh/task-spec\":\"\",\"volcano.sh/template-uid\":\""
	"\"},\"labels\":{\"volcano.sh/job-name\":\"\",\"volcano.sh/job-namespace\":\"\","
	"\"volcano.sh/queue-name\":\"default\",\"volcano.sh/task-index\":\"0\","
	"\"volcano.sh/task-spec\":\"\"},\"status\":{\"phase\":\"Pending\"},"
	"{\"apiVersion\":\"v1\",\"kind\":\"Pod\",\"metadata\":{\"name\":\"\",\"generateName\":\"\","
	"\"namespace\":\"default\",\"uid\":\"\",\"resourceVersion\":\"\","
	"\"creationTimestamp\":\"2026-01-01T00:00:00Z\",\"spec\":{";

struct pack_streams {
	z_stream primed, inf; /* primed: deflate, the dictionary set, no input yet */
	bool primed_ok, inf_ok;
};

static pthread_key_t pack_key;
static pthread_once_t pack_once = PTHREAD_ONCE_INIT;
static bool pack_key_ok;

static voidpf pack_zalloc(voidpf opaque, uInt items, uInt size)
{
	(void)opaque;
	if (size && items > SIZE_MAX / size)
		return NULL;
	return vc_malloc((size_t)items * size); /* zlib needs no zeroed memory */
}

static void pack_zfree(voidpf opaque, voidpf p)
{
	(void)opaque;
	vc_free(p);
}

static void pack_streams_free(void *p)
{
	struct pack_streams *z = p;

	if (!z)
		return;
	if (z->primed_ok)
		deflateEnd(&z->primed);
	if (z->inf_ok)
		inflateEnd(&z->inf);
	vc_free(z);
}

static void pack_key_init(void)
{
	pack_key_ok = pthread_key_create(&pack_key, pack_streams_free) == 0;
}

/* The calling thread's streams, made on first use; NULL when memory runs out. */
static struct pack_streams *pack_streams(void)
{
	struct pack_streams *z;

	pthread_once(&pack_once, pack_key_init);
	if (!pack_key_ok)
		return NULL;
	z = pthread_getspecific(pack_key);
	if (z)
		return z;
	z = vc_calloc(1, sizeof(*z));
	if (!z)
		return NULL;
	z->primed.zalloc = z->inf.zalloc = pack_zalloc;
	z->primed.zfree = z->inf.zfree = pack_zfree;
	if (pthread_setspecific(pack_key, z)) {
		vc_free(z);
		return NULL;
	}
	return z;
}

size_t vc_cache_pack_deflate(const char *src, size_t n, char *dst, size_t cap)
{
	struct pack_streams *z = pack_streams();
	z_stream d;
	size_t out = 0;

	if (!z || n > UINT32_MAX || cap > UINT32_MAX)
		return 0;
	if (!z->primed_ok) {
		if (deflateInit2(&z->primed, Z_BEST_SPEED, Z_DEFLATED, PACK_WBITS, PACK_MEMLEVEL,
				 Z_DEFAULT_STRATEGY) != Z_OK)
			return 0;
		if (deflateSetDictionary(&z->primed, (const Bytef *)pack_dict,
					 sizeof(pack_dict) - 1) != Z_OK) {
			deflateEnd(&z->primed);
			return 0;
		}
		z->primed_ok = true;
	}
	if (deflateCopy(&d, &z->primed) != Z_OK)
		return 0;
	d.next_in = (Bytef *)(uintptr_t)src;
	d.avail_in = (uInt)n;
	d.next_out = (Bytef *)dst;
	d.avail_out = (uInt)cap;
	if (deflate(&d, Z_FINISH) == Z_STREAM_END)
		out = cap - d.avail_out;
	/* else it did not fit: kept as it is */
	deflateEnd(&d);
	return out;
}

int vc_cache_pack_inflate(const char *src, size_t n, char *dst, size_t raw)
{
	struct pack_streams *z = pack_streams();
	int rc;

	if (!z)
		return VC_ENOMEM;
	if (n > UINT32_MAX || raw > UINT32_MAX)
		return VC_EINVAL;
	if (!z->inf_ok) {
		rc = inflateInit2(&z->inf, PACK_WBITS);
		if (rc != Z_OK)
			return rc == Z_MEM_ERROR ? VC_ENOMEM : VC_EINVAL;
		z->inf_ok = true;
	} else if (inflateReset(&z->inf) != Z_OK) {
		return VC_EINVAL;
	}
	/* Raw deflate takes its dictionary before any input. */
	if (inflateSetDictionary(&z->inf, (const Bytef *)pack_dict, sizeof(pack_dict) - 1) != Z_OK)
		return VC_EINVAL;
	z->inf.next_in = (Bytef *)(uintptr_t)src;
	z->inf.avail_in = (uInt)n;
	z->inf.next_out = (Bytef *)dst;
	z->inf.avail_out = (uInt)raw;
	rc = inflate(&z->inf, Z_FINISH);
	if (rc == Z_MEM_ERROR)
		return VC_ENOMEM;
	return rc == Z_STREAM_END && z->inf.avail_out == 0 ? 0 : VC_EINVAL;
}
