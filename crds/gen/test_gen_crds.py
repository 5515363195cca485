#!/usr/bin/env python3
"""Unit tests for gen_crds.py. Run: python3 crds/gen/test_gen_crds.py (standard library only;
the YAML round-trip tests also use PyYAML when it happens to be installed, and the tests on
the real swagger.json are skipped when the Kubernetes v1.20.2 tree is not in the cache)."""

import copy
import io
import json
import os
import random
import shutil
import sys
import tempfile
import types
import unittest
from contextlib import redirect_stderr, redirect_stdout

sys.dont_write_bytecode = True
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import gen_crds  # noqa: E402
import volcano_types  # noqa: E402

try:
    import yaml  # optional
except ImportError:
    yaml = None

SWAGGER = gen_crds.default_swagger_path()
HAVE_SWAGGER = os.path.exists(SWAGGER)
CRD_DIR = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

P = "#/definitions/"

# A small swagger document with every construct the converter handles.
FAKE_DEFS = {
    "io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta": {
        "type": "object",
        "properties": {"name": {"type": "string"}, "uid": {"type": "string"}},
    },
    "io.k8s.apimachinery.pkg.api.resource.Quantity": {"type": "string"},
    "io.k8s.apimachinery.pkg.util.intstr.IntOrString": {
        "type": "string",
        "format": "int-or-string",
    },
    "t.Port": {
        "description": "a port",
        "type": "object",
        "required": ["port"],
        "properties": {
            "port": {"type": "integer", "format": "int32"},
            "protocol": {"type": "string"},
        },
    },
    "t.Pod": {
        "type": "object",
        "required": ["zeta", "alpha"],
        "properties": {
            "metadata": {"$ref": P + "io.k8s.apimachinery.pkg.apis.meta.v1.ObjectMeta"},
            "alpha": {"type": "string", "description": "dropped"},
            "zeta": {"type": "boolean"},
            "ports": {
                "type": "array",
                "items": {"$ref": P + "t.Port"},
                "x-kubernetes-list-type": "map",
                "x-kubernetes-list-map-keys": ["port", "protocol"],
                "x-kubernetes-patch-strategy": "merge",
                "x-kubernetes-patch-merge-key": "port",
            },
            "limits": {
                "type": "object",
                "additionalProperties": {
                    "$ref": P + "io.k8s.apimachinery.pkg.api.resource.Quantity"
                },
            },
            "target": {"$ref": P + "io.k8s.apimachinery.pkg.util.intstr.IntOrString"},
            "selector": {
                "type": "object",
                "properties": {"k": {"type": "string"}},
                "x-kubernetes-map-type": "atomic",
            },
            "data": {"type": "string", "format": "byte"},
        },
    },
    "t.Loop": {"type": "object", "properties": {"next": {"$ref": P + "t.Loop"}}},
}


def fake_types(schema, defaults=None, file="x.yaml"):
    """A stand-in for volcano_types with one CRD."""
    return types.SimpleNamespace(
        CRDS=[
            dict(
                file=file,
                group="g.example",
                kind="Thing",
                plural="things",
                singular="thing",
                short_names=["th"],
                scope="Namespaced",
                version="v1",
                columns=[],
                subresources=None,
                schema=schema,
            )
        ],
        K8S_DEFAULTS=defaults if defaults is not None else {},
    )


def walk(node, path=""):
    """Yields (path, node) for every schema node."""
    yield path, node
    for name, child in node.get("properties", {}).items():
        yield from walk(child, path + "." + name)
    if isinstance(node.get("additionalProperties"), dict):
        yield from walk(node["additionalProperties"], path + "[*]")
    if "items" in node:
        yield from walk(node["items"], path + "[]")


class QuoteTest(unittest.TestCase):
    CASES = [
        ("default", "default"),
        ("TCP", "TCP"),
        ("/etc/ceph/keyring", "/etc/ceph/keyring"),
        ("^[^:]+$", "^[^:]+$"),
        (volcano_types.DNS1123_SUBDOMAIN, volcano_types.DNS1123_SUBDOMAIN),
        (gen_crds.QUANTITY_PATTERN, gen_crds.QUANTITY_PATTERN),
        (".status.state.phase", ".status.state.phase"),
        ("x-kubernetes-int-or-string", "x-kubernetes-int-or-string"),
        ("it's", "it's"),
        ("a:b", "a:b"),
        ("", '""'),
        ("*", "'*'"),
        ("-x", "'-x'"),
        ("'q'", "'''q'''"),
        ("a: b", "'a: b'"),
        ("a #b", "'a #b'"),
        ("key:", "'key:'"),
        (" lead", "' lead'"),
        ("trail ", "'trail '"),
        ("true", "'true'"),
        ("No", "'No'"),
        ("off", "'off'"),
        ("y", "'y'"),
        ("null", "'null'"),
        ("~", "'~'"),
        ("3", "'3'"),
        ("-1.5e3", "'-1.5e3'"),
        (".5", "'.5'"),
        ("0x1F", "'0x1F'"),
        ("0o17", "'0o17'"),
        ("1:20", "'1:20'"),
        (".inf", "'.inf'"),
        (".NaN", "'.NaN'"),
        ("2001-12-14", "'2001-12-14'"),
        ("<<", "'<<'"),
        ("=", "'='"),
        ("tab\there", '"tab\\there"'),
        ("line\nbreak", '"line\\nbreak"'),
        ("caf\u00e9", '"caf\\u00e9"'),
    ]

    def test_cases(self):
        for s, want in self.CASES:
            with self.subTest(s=s):
                self.assertEqual(gen_crds.quote(s), want)

    def test_scalars(self):
        self.assertEqual(gen_crds.scalar(True), "true")
        self.assertEqual(gen_crds.scalar(False), "false")
        self.assertEqual(gen_crds.scalar(0), "0")
        self.assertEqual(gen_crds.scalar(-7), "-7")
        self.assertEqual(gen_crds.scalar(65535), "65535")
        with self.assertRaises(gen_crds.GenError):
            gen_crds.scalar(1.5)
        with self.assertRaises(gen_crds.GenError):
            gen_crds.scalar(None)

    @unittest.skipIf(yaml is None, "PyYAML not installed")
    def test_round_trip_with_pyyaml(self):
        for s, _ in self.CASES:
            with self.subTest(s=s):
                self.assertEqual(yaml.safe_load("k: " + gen_crds.quote(s) + "\n"), {"k": s})
        rng = random.Random(1)
        alphabet = "ab01 :#-'\"*&!|>%@`{}[],?.~^$\\+()=<\t\u00e9"
        for _ in range(5000):
            s = "".join(rng.choice(alphabet) for _ in range(rng.randint(0, 8)))
            self.assertEqual(yaml.safe_load("k: " + gen_crds.quote(s) + "\n"), {"k": s}, repr(s))


class YamlWriterTest(unittest.TestCase):
    def test_layout(self):
        doc = {
            "b": [{"y": 1, "x": [True, "s"]}, {}, [], ["n"], "plain"],
            "a": {},
            "c": [],
            "d": {"z": {"k": "*"}},
        }
        want = (
            "a: {}\n"
            "b:\n"
            "- x:\n"
            "  - true\n"
            "  - s\n"
            "  'y': 1\n"
            "- {}\n"
            "- []\n"
            "- - 'n'\n"
            "- plain\n"
            "c: []\n"
            "d:\n"
            "  z:\n"
            "    k: '*'\n"
        )
        self.assertEqual(gen_crds.to_yaml(doc), want)

    @unittest.skipIf(yaml is None, "PyYAML not installed")
    def test_layout_round_trip(self):
        doc = {"b": [{"y": 1, "x": [True, "s"]}, {}, [], ["n", ["m"]]], "a": {"": "", "-": "*"}}
        self.assertEqual(yaml.safe_load(gen_crds.to_yaml(doc)), doc)


class ConverterTest(unittest.TestCase):
    def convert(self, name, defaults=None, defs=None):
        conv = gen_crds.Converter(defs or FAKE_DEFS, defaults or {})
        return conv, conv.ref(name, "test")

    def test_pod(self):
        conv, got = self.convert("t.Pod", {("t.Port", "protocol"): "TCP"})
        quantity = {
            "anyOf": [{"type": "integer"}, {"type": "string"}],
            "pattern": gen_crds.QUANTITY_PATTERN,
            "x-kubernetes-int-or-string": True,
        }
        want = {
            "type": "object",
            "x-kubernetes-preserve-unknown-fields": True,
            "required": ["alpha", "zeta"],
            "properties": {
                "alpha": {"type": "string"},
                "data": {"type": "string", "format": "byte"},
                "limits": {"type": "object", "additionalProperties": quantity},
                "metadata": gen_crds.object_meta_schema(),
                "ports": {
                    "type": "array",
                    "x-kubernetes-list-type": "map",
                    "x-kubernetes-list-map-keys": ["port", "protocol"],
                    "items": {
                        "type": "object",
                        "x-kubernetes-preserve-unknown-fields": True,
                        "required": ["port"],
                        "properties": {
                            "port": {"type": "integer", "format": "int32"},
                            "protocol": {"type": "string", "default": "TCP"},
                        },
                    },
                },
                "selector": {
                    "type": "object",
                    "x-kubernetes-map-type": "atomic",
                    "x-kubernetes-preserve-unknown-fields": True,
                    "properties": {"k": {"type": "string"}},
                },
                "target": {
                    "anyOf": [{"type": "integer"}, {"type": "string"}],
                    "x-kubernetes-int-or-string": True,
                },
                "zeta": {"type": "boolean"},
            },
        }
        self.assertEqual(got, want)
        self.assertEqual(conv.used_defaults, {("t.Port", "protocol")})
        gen_crds.check_structural(got, "t.Pod")

    def test_default_is_per_definition(self):
        # A default keyed on t.Pod's own "alpha" does not leak into other definitions.
        conv, got = self.convert("t.Pod", {("t.Pod", "alpha"): "", ("t.Port", "protocol"): "UDP"})
        self.assertEqual(got["properties"]["alpha"], {"type": "string", "default": ""})
        self.assertEqual(got["properties"]["zeta"], {"type": "boolean"})

    def test_object_meta(self):
        want = {
            "type": "object",
            "properties": {
                "annotations": {"type": "object", "additionalProperties": {"type": "string"}},
                "finalizers": {"type": "array", "items": {"type": "string"}},
                "labels": {"type": "object", "additionalProperties": {"type": "string"}},
                "name": {"type": "string"},
                "namespace": {"type": "string"},
            },
        }
        self.assertEqual(gen_crds.object_meta_schema(), want)

    def assert_error(self, message, name, defs):
        with self.assertRaises(gen_crds.GenError) as ctx:
            self.convert(name, defs=defs)
        self.assertEqual(str(ctx.exception), message)

    def test_errors(self):
        d = copy.deepcopy(FAKE_DEFS)
        self.assert_error("t.Loop.next: recursive definition 't.Loop' (t.Loop)", "t.Loop", d)
        self.assert_error("test: unknown definition 't.Nope'", "t.Nope", d)

        d = {"t.A": {"type": "object", "properties": {"a": {"type": "string", "enum": ["x"]}}}}
        self.assert_error("t.A.a: unsupported keys enum", "t.A", d)
        d = {"t.A": {"type": "object", "properties": {"a": {"$ref": P + "t.B", "type": "string"}}}}
        self.assert_error("t.A.a: keys beside $ref: type", "t.A", d)
        d = {"t.A": {"type": "object", "properties": {"a": {"$ref": "other.json#/x"}}}}
        self.assert_error("t.A.a: unsupported $ref 'other.json#/x'", "t.A", d)
        d = {"t.A": {"type": "object"}}
        self.assert_error("t.A: object without properties or additionalProperties", "t.A", d)
        d = {"t.A": {"type": "array"}}
        self.assert_error("t.A: array without items", "t.A", d)
        d = {"t.A": {"properties": {}}}
        self.assert_error("t.A: unsupported type None", "t.A", d)
        d = {"t.A": {"type": "string", "format": "int-or-string"}}
        self.assert_error("t.A: int-or-string outside IntOrString", "t.A", d)
        d = {"t.A": {"type": "object", "required": ["b"], "properties": {"a": {"type": "string"}}}}
        self.assert_error("t.A: required names no property: ['b']", "t.A", d)
        d = {
            "t.A": {
                "type": "object",
                "properties": {"a": {"type": "string"}},
                "additionalProperties": {"type": "string"},
            }
        }
        self.assert_error("t.A: both properties and additionalProperties", "t.A", d)
        d = {"t.A": ["not", "a", "schema"]}
        self.assert_error("t.A: schema is not an object", "t.A", d)

    def test_list_map_key_needs_default(self):
        conv, got = self.convert("t.Pod")  # no TCP default for ports[].protocol
        with self.assertRaises(gen_crds.GenError) as ctx:
            gen_crds.check_structural(got, "t.Pod")
        self.assertEqual(
            str(ctx.exception),
            "t.Pod.ports: list-map key 'protocol' is neither required nor defaulted",
        )

    def test_check_structural(self):
        with self.assertRaises(gen_crds.GenError) as ctx:
            gen_crds.check_structural({"type": "object", "properties": {"a": {}}}, "r")
        self.assertEqual(str(ctx.exception), "r.a: schema without type")
        with self.assertRaises(gen_crds.GenError) as ctx:
            gen_crds.check_structural({"items": {"$k8s": "x"}, "type": "array"}, "r")
        self.assertEqual(str(ctx.exception), "r[]: unresolved reference")


class GenerateTest(unittest.TestCase):
    def test_placeholders_resolved(self):
        schema = volcano_types.typed_root(
            {
                "spec": volcano_types.obj(
                    {"pod": volcano_types.k8s("t.Pod"), "min": volcano_types.resource_list()}
                )
            }
        )
        t = fake_types(schema, {("t.Port", "protocol"): "TCP"})
        files = gen_crds.generate(FAKE_DEFS, t)
        self.assertEqual(sorted(files), ["x.yaml"])
        text = files["x.yaml"]
        start = gen_crds.HEADER + "---\napiVersion: apiextensions.k8s.io/v1\n"
        self.assertTrue(text.startswith(start))
        self.assertIn("  name: things.g.example\n", text)
        self.assertIn("    shortNames:\n    - th\n", text)
        self.assertNotIn("$k8s", text)
        self.assertNotIn("description", text)
        self.assertEqual(gen_crds.generate(FAKE_DEFS, t), files)

    def test_unused_default_is_an_error(self):
        t = fake_types(volcano_types.typed_root({}), {("t.Port", "protocol"): "TCP"})
        with self.assertRaises(gen_crds.GenError) as ctx:
            gen_crds.generate(FAKE_DEFS, t)
        self.assertEqual(
            str(ctx.exception), "K8S_DEFAULTS entries never reached: [('t.Port', 'protocol')]"
        )

    def test_placeholder_with_extra_keys(self):
        t = fake_types(volcano_types.typed_root({"a": {"$k8s": "t.Pod", "type": "object"}}))
        with self.assertRaises(gen_crds.GenError) as ctx:
            gen_crds.generate(FAKE_DEFS, t)
        self.assertEqual(str(ctx.exception), "Thing.properties.a: $k8s placeholder with other keys")


@unittest.skipUnless(HAVE_SWAGGER, "Kubernetes v1.20.2 swagger.json not in the cache")
class RealSwaggerTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.defs = gen_crds.load_swagger(SWAGGER, gen_crds.SWAGGER_SHA256)
        cls.files = gen_crds.generate(cls.defs)
        conv = gen_crds.Converter(cls.defs, volcano_types.K8S_DEFAULTS)
        cls.crds = {d["file"]: gen_crds.build_crd(d, conv) for d in volcano_types.CRDS}

    def schema(self, file):
        return self.crds[file]["spec"]["versions"][0]["schema"]["openAPIV3Schema"]

    def test_files(self):
        self.assertEqual(
            sorted(self.files),
            [
                "batch.volcano.sh_jobs.yaml",
                "bus.volcano.sh_commands.yaml",
                "scheduling.volcano.sh_podgroups.yaml",
                "scheduling.volcano.sh_queues.yaml",
            ],
        )
        self.assertEqual(gen_crds.generate(self.defs), self.files)

    def test_committed_files_are_current(self):
        for name, text in self.files.items():
            with open(os.path.join(CRD_DIR, name), encoding="utf-8") as f:
                self.assertEqual(f.read(), text, name)

    @unittest.skipIf(yaml is None, "PyYAML not installed")
    def test_yaml_reads_back(self):
        for name, text in self.files.items():
            docs = [d for d in yaml.safe_load_all(text) if d is not None]
            self.assertEqual(docs, [self.crds[name]], name)

    def test_no_leftovers(self):
        for name, text in self.files.items():
            for word in ("description", "$ref", "$k8s", "x-kubernetes-patch", "int-or-string\n"):
                self.assertNotIn(word, text, name)

    def test_job_template(self):
        spec = self.schema("batch.volcano.sh_jobs.yaml")["properties"]["spec"]
        task = spec["properties"]["tasks"]
        self.assertEqual(task["minItems"], 1)
        tmpl = task["items"]["properties"]["template"]
        self.assertTrue(tmpl["x-kubernetes-preserve-unknown-fields"])
        self.assertEqual(tmpl["properties"]["metadata"], gen_crds.object_meta_schema())
        pod = tmpl["properties"]["spec"]
        self.assertEqual(pod["required"], ["containers"])
        self.assertTrue(pod["x-kubernetes-preserve-unknown-fields"])
        ports = pod["properties"]["containers"]["items"]["properties"]["ports"]
        self.assertEqual(ports["x-kubernetes-list-type"], "map")
        self.assertEqual(ports["x-kubernetes-list-map-keys"], ["containerPort", "protocol"])
        self.assertEqual(ports["items"]["properties"]["protocol"]["default"], "TCP")
        tsc = pod["properties"]["topologySpreadConstraints"]
        self.assertEqual(tsc["x-kubernetes-list-map-keys"], ["topologyKey", "whenUnsatisfiable"])
        port = pod["properties"]["containers"]["items"]["properties"]["livenessProbe"]
        port = port["properties"]["httpGet"]["properties"]["port"]
        self.assertEqual(port, gen_crds.int_or_string())
        res = pod["properties"]["containers"]["items"]["properties"]["resources"]
        limits = res["properties"]["limits"]
        self.assertEqual(limits["additionalProperties"], gen_crds.quantity_schema())

    def test_every_struct_preserves_unknown_fields(self):
        # Inside embedded k8s types, every object with properties preserves unknown fields,
        # except the embedded ObjectMeta, which prunes like Volcano's; Volcano's own types
        # never do.
        job = self.schema("batch.volcano.sh_jobs.yaml")
        marked = unmarked = 0
        for path, node in walk(job):
            if "properties" not in node:
                continue
            inside = ".template" in path or ".volumeClaim" in path
            if inside and not path.endswith(".metadata"):
                self.assertTrue(node.get("x-kubernetes-preserve-unknown-fields"), path)
                marked += 1
            else:
                self.assertNotIn("x-kubernetes-preserve-unknown-fields", node, path)
                unmarked += 1
        self.assertGreater(marked, 100)
        self.assertGreater(unmarked, 10)

    def test_job_status_and_validation(self):
        props = self.schema("batch.volcano.sh_jobs.yaml")["properties"]
        spec = props["spec"]["properties"]
        self.assertEqual(spec["minAvailable"], {"type": "integer", "format": "int32", "minimum": 0})
        self.assertEqual(
            spec["maxRetry"], {"type": "integer", "format": "int32", "minimum": 0, "default": 3}
        )
        self.assertEqual(spec["queue"]["default"], "default")
        name = spec["tasks"]["items"]["properties"]["name"]
        want = {"type": "string", "maxLength": 63, "pattern": volcano_types.DNS1123_LABEL}
        self.assertEqual(name, want)
        state = props["status"]["properties"]["state"]["properties"]["phase"]
        self.assertEqual(state["enum"], volcano_types.JOB_PHASES)

    def test_small_crds(self):
        cmd = self.schema("bus.volcano.sh_commands.yaml")
        self.assertEqual(
            sorted(cmd["properties"]),
            ["action", "apiVersion", "kind", "message", "metadata", "reason", "target"],
        )
        target = cmd["properties"]["target"]
        self.assertEqual(target["required"], ["apiVersion", "kind", "name", "uid"])
        pg = self.crds["scheduling.volcano.sh_podgroups.yaml"]
        self.assertEqual(pg["spec"]["versions"][0]["subresources"], {})
        self.assertEqual(pg["spec"]["names"]["shortNames"], ["pg", "podgroup-v1beta1"])
        q = self.crds["scheduling.volcano.sh_queues.yaml"]
        self.assertEqual(q["spec"]["scope"], "Cluster")
        queue = self.schema("scheduling.volcano.sh_queues.yaml")["properties"]["spec"]
        want = {"type": "integer", "format": "int32", "default": 1, "minimum": 1, "maximum": 65535}
        self.assertEqual(queue["properties"]["weight"], want)
        self.assertNotIn("shortNames", self.crds["bus.volcano.sh_commands.yaml"]["spec"]["names"])
        cmd_version = self.crds["bus.volcano.sh_commands.yaml"]["spec"]["versions"][0]
        self.assertNotIn("subresources", cmd_version)


class MainTest(unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.mkdtemp(prefix="gen_crds_test.")
        self.addCleanup(shutil.rmtree, self.tmp)

    def run_main(self, *args):
        out, err = io.StringIO(), io.StringIO()
        with redirect_stdout(out), redirect_stderr(err):
            rc = gen_crds.main(list(args))
        return rc, out.getvalue(), err.getvalue()

    def test_missing_swagger(self):
        path = os.path.join(self.tmp, "none.json")
        rc, out, err = self.run_main("--swagger", path, "--out-dir", self.tmp)
        self.assertEqual(rc, 2)
        self.assertEqual(out, "")
        self.assertIn("gen_crds: error: cannot read swagger.json '%s': No such file" % path, err)
        self.assertEqual(os.listdir(self.tmp), [])

    def test_wrong_swagger(self):
        path = os.path.join(self.tmp, "other.json")
        with open(path, "w") as f:
            json.dump({"definitions": {}}, f)
        rc, _, err = self.run_main("--swagger", path, "--check", "--out-dir", self.tmp)
        self.assertEqual(rc, 2)
        self.assertIn("gen_crds: error: swagger.json '%s' has sha256 " % path, err)
        self.assertIn("not the v1.20.2 one %s" % gen_crds.SWAGGER_SHA256, err)
        # --any-swagger gets past the digest, then fails on the missing definitions.
        rc, _, err = self.run_main("--swagger", path, "--any-swagger", "--out-dir", self.tmp)
        self.assertEqual(rc, 2)
        self.assertIn("unknown definition 'io.k8s.api.core.v1.", err)

    def test_unparsable_swagger(self):
        path = os.path.join(self.tmp, "bad.json")
        with open(path, "w") as f:
            f.write("{")
        rc, _, err = self.run_main("--swagger", path, "--any-swagger")
        self.assertEqual(rc, 2)
        self.assertIn("cannot parse swagger.json '%s'" % path, err)
        with open(path, "w") as f:
            f.write("[]")
        rc, _, err = self.run_main("--swagger", path, "--any-swagger")
        self.assertEqual(rc, 2)
        self.assertIn("gen_crds: error: swagger.json '%s' has no definitions" % path, err)

    @unittest.skipUnless(HAVE_SWAGGER, "Kubernetes v1.20.2 swagger.json not in the cache")
    def test_write_then_check(self):
        rc, out, _ = self.run_main("--out-dir", self.tmp)
        self.assertEqual(rc, 0)
        self.assertEqual(out.count("gen_crds: wrote "), 4)
        rc, out, err = self.run_main("--check", "--out-dir", self.tmp)
        self.assertEqual((rc, out, err), (0, "gen_crds: 4 CRDs up to date\n", ""))

        jobs = os.path.join(self.tmp, "batch.volcano.sh_jobs.yaml")
        with open(jobs, "a") as f:
            f.write("# edited\n")
        os.remove(os.path.join(self.tmp, "bus.volcano.sh_commands.yaml"))
        rc, out, err = self.run_main("--check", "--out-dir", self.tmp)
        self.assertEqual(rc, 1)
        self.assertEqual(out, "")
        self.assertEqual(
            err,
            "gen_crds: %s is out of date; run crds/gen/gen_crds.py\n"
            "gen_crds: %s is missing; run crds/gen/gen_crds.py\n"
            % (jobs, os.path.join(self.tmp, "bus.volcano.sh_commands.yaml")),
        )


if __name__ == "__main__":
    unittest.main()
