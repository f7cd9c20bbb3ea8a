"""The h2d-contracts pytest plugin: target selection, profiles, markers, devices, report.

Registered through the ``pytest11`` entry point ``h2d_contracts`` (pyproject.toml), so
installing the kit is enough: in any repository,

    pytest --pyargs h2d_contracts.tests --h2d-impl mypkg.h2d:target -n auto

runs the packaged contract suite against ``mypkg.h2d:target`` (README: Use it in your
project). The plugin stays inert in a session that neither runs the kit's suite nor
names a target (``--h2d-impl`` or ``$H2D_IMPL``): a project that merely has the kit
installed keeps its own Hypothesis profile, seeds, ``-n auto`` and timeouts.

Options:
    --h2d-impl NAME   target under test: a built-in (reference, reference-cpu, vllm,
                      vllm-device-dtype, vllm-pin-memory) or package.module:factory.
                      Default: $H2D_IMPL, else "reference".
    --h2d-xfails PATH expected failures of the target (default: xfails/<target name>.txt
                      under the rootdir if it exists, else the kit's own file for a
                      built-in target); strict, see contracts/report.py.
    --h2d-report PATH write the conformance report PATH.json and PATH.md (xdist-safe:
                      collected from test reports on the controller).

Hypothesis profiles (``--hypothesis-profile NAME``, registered when the plugin is active):
``default`` (the CPU suite in a few minutes on 2 cores), ``dev`` (quick), ``fuzz`` (many
examples; long campaigns).
"""

from __future__ import annotations

import dataclasses
import datetime
import faulthandler
import os
import random
import shlex
import platform
import signal
import sys
import threading
import warnings
from pathlib import Path
from typing import Any

import pytest
import torch
from hypothesis import HealthCheck, settings

from h2d_contracts import CHECKOUT, SUITE_DIR, XFAILS_DIR
from h2d_contracts.contracts import CATALOGUE, NotApplicable, load_target
from h2d_contracts.contracts import report as h2d_report
from h2d_contracts.contracts._report import TargetTimeout, call_in_flight



def _register_profiles(config: pytest.Config) -> None:
    """The kit's Hypothesis profiles, registered (and ``default`` loaded) only in a kit session.

    Called before Hypothesis's own plugin reads ``--hypothesis-profile`` (tryfirst
    pytest_configure), so ``--hypothesis-profile fuzz`` picks the kit's ``fuzz``.
    """
    settings.register_profile("default", max_examples=40, deadline=None, suppress_health_check=[HealthCheck.too_slow])
    settings.register_profile("dev", max_examples=10, deadline=None, suppress_health_check=[HealthCheck.too_slow])
    settings.register_profile(
        "fuzz",
        max_examples=5000,
        deadline=None,
        suppress_health_check=list(HealthCheck),
    )
    settings.load_profile(os.environ.get("H2D_HYPOTHESIS_PROFILE", "default"))


def _suite_item(item: pytest.Item) -> bool:
    """Whether ``item`` is a test of the kit's suite (not one of the user's own tests in the same session)."""
    return SUITE_DIR.resolve() in Path(item.path).resolve().parents


def active(config: pytest.Config) -> bool:
    """Whether this session is a kit session: it names a target or runs the kit's suite.

    True when ``--h2d-impl`` or ``$H2D_IMPL`` is given, when an argument is the packaged
    suite (``--pyargs h2d_contracts.tests[...]``) or a path in it, or, in the kit's own
    checkout, a folder that contains it (``pytest`` at the top runs ``testpaths = tests``).
    An xdist worker takes its controller's answer. Cached on the config.
    """
    cached = getattr(config, "_h2d_active", None)
    if cached is not None:
        return cached
    if hasattr(config, "workerinput"):
        answer = bool(config.workerinput.get("h2d_active", False))  # type: ignore[attr-defined]
    else:
        answer = _names_kit(config)
    config._h2d_active = answer  # type: ignore[attr-defined]
    return answer


def _names_kit(config: pytest.Config) -> bool:
    if config.getoption("--h2d-impl", None) is not None or os.environ.get("H2D_IMPL"):
        return True
    suite = SUITE_DIR.resolve()
    pyargs = bool(getattr(config.option, "pyargs", False))
    for arg in getattr(config, "args", None) or []:
        head = str(arg).split("::", 1)[0]
        if pyargs and (head == "h2d_contracts" or head.startswith(("h2d_contracts.tests", "h2d_contracts/tests"))):
            return True
        path = Path(config.invocation_params.dir, head).resolve()
        if path == suite or suite in path.parents or (CHECKOUT and path in suite.parents):
            return True
    return False


def canonical_id(item: pytest.Item) -> str:
    """A test of the kit's suite named as the checkout names it (``tests/test_h2d.py::test_values[cpu]``).

    Expectation entries and reports use these ids. pytest's own id of an installed suite
    depends on how it was collected: relative to the package folder with ``--pyargs
    h2d_contracts.tests`` (``test_h2d.py::...``), to the module with ``--pyargs
    h2d_contracts.tests.test_h2d`` (``::...``), or with ``..`` segments up to
    site-packages. A test outside the suite (the user's own) keeps pytest's id.
    """
    path = Path(item.path).resolve()
    suite = SUITE_DIR.resolve()
    if suite not in path.parents:
        return item.nodeid
    _, sep, rest = item.nodeid.partition("::")
    return f"tests/{path.relative_to(suite).as_posix()}{sep}{rest}"


def _impl(config: pytest.Config) -> str:
    """The target spec: ``--h2d-impl``, else ``$H2D_IMPL``, else ``reference``."""
    return config.getoption("--h2d-impl", None) or os.environ.get("H2D_IMPL") or "reference"


def pytest_addoption(parser: pytest.Parser) -> None:
    group = parser.getgroup("h2d-contracts")
    group.addoption(
        "--h2d-impl",
        default=None,
        help="target under test: reference, reference-cpu, vllm, vllm-device-dtype, vllm-pin-memory, or package.module:factory (default: $H2D_IMPL or reference)",
    )
    group.addoption(
        "--h2d-xfails",
        default=None,
        help="expected failures of the target, one 'node-id-prefix-or-contract-id  # reason' a line (default: xfails/<target name>.txt under the rootdir if it exists; 'none' for no file). Write --h2d-xfails=PATH: pytest picks its rootdir before plugins load, so a separate existing PATH is taken for a test path",
    )
    group.addoption(
        "--h2d-example-db",
        default=None,
        metavar="none|PATH",
        help="Hypothesis example database: a directory (failing examples saved there and replayed first; the run keeps Hypothesis's random seeds) or 'none'; default: none, the kit forces one seed per run (chosen at random unless --hypothesis-seed) and prints it, and Hypothesis uses no database under a forced seed",
    )
    group.addoption(
        "--h2d-max-hangs",
        type=int,
        default=3,
        metavar="N",
        help="after N tests of one process ran past --timeout, its remaining tests fail at once as 'not run' (default 3; 0: never)",
    )
    group.addoption(
        "--h2d-report",
        default=None,
        metavar="PATH",
        help="write the conformance report to PATH.json and PATH.md",
    )


def _xdist_worker_index() -> int | None:
    worker = os.environ.get("PYTEST_XDIST_WORKER")  # "gw3" under pytest-xdist
    return int(worker[2:]) if worker and worker.startswith("gw") else None


@pytest.hookimpl(tryfirst=True)  # before pytest-timeout and Hypothesis's plugin read their settings
def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line("markers", "gpu: needs a CUDA device (skipped with a reason on CPU-only machines)")
    config.addinivalue_line("markers", "multi_gpu: needs two CUDA devices")
    config.addinivalue_line("markers", "meta: meta-tests of the kit itself (mutants, strategies, helpers)")
    config.addinivalue_line("markers", "contract(*ids): catalogue ids a test exercises, when its body does not call a prop_*/check_* function")
    if not active(config):
        return
    config.pluginmanager.register(_KitSession(), "h2d-session")
    _register_profiles(config)
    # No --hypothesis-seed: choose one here and force it (Hypothesis's plugin reads the option
    # after this hook; _OneWorkerPerGPU hands it to xdist workers), so the header and the report
    # print the seed a failing run used and `--hypothesis-seed N` replays it. A forced seed turns
    # Hypothesis's example database off (core.py: no database key), so not when the user asks
    # for a database with --h2d-example-db PATH: that run keeps random seeds and its database.
    wants_db = config.getoption("--h2d-example-db", None) not in (None, "none")
    if config.getoption("hypothesis_seed", None) is None and not wants_db:
        if hasattr(config, "workerinput"):  # an xdist worker: the controller's seed (see _OneWorkerPerGPU)
            config.option.hypothesis_seed = config.workerinput.get("h2d_hypothesis_seed")  # type: ignore[attr-defined]
        else:
            config.option.hypothesis_seed = random.SystemRandom().randrange(2**32)
            config._h2d_seed_chosen = True  # type: ignore[attr-defined]
    if config.pluginmanager.has_plugin("timeout") and config.getoption("timeout", None) is None:
        if "PYTEST_TIMEOUT" not in os.environ and not config.getini("timeout"):
            config.option.timeout = DEFAULT_TIMEOUT_S  # see _TimeoutHooks
    # Under `pytest -n auto` with several GPUs, worker gwK uses GPU K mod count.
    index = _xdist_worker_index()
    if index is not None and torch.cuda.is_available() and torch.cuda.device_count() > 1:
        torch.cuda.set_device(index % torch.cuda.device_count())
    try:
        config._h2d_target = load_target(_impl(config))  # type: ignore[attr-defined]
    except Exception as exc:  # noqa: BLE001 - surface a clear usage error naming the option
        source = "--h2d-impl" if config.getoption("--h2d-impl") is not None else "H2D_IMPL (environment)"
        hint = ""
        if isinstance(exc, ModuleNotFoundError) and ":" in _impl(config):
            hint = " (a user adapter's module must be importable: run from its folder, install it, or add its folder to PYTHONPATH)"
        raise pytest.UsageError(f"{source}={_impl(config)!r} could not be loaded: {exc}{hint}") from exc
    _load_xfails(config)
    config._h2d_report = None  # type: ignore[attr-defined]
    if not hasattr(config, "workerinput"):  # the controller (or the only process): collect outcomes
        config._h2d_report = h2d_report.ConformanceReport(meta=_report_meta(config), catalogue=CATALOGUE)  # type: ignore[attr-defined]
        config.pluginmanager.register(_ReportPlugin(config._h2d_report), "h2d-report")  # type: ignore[attr-defined]


def _kit_report_header(config: pytest.Config) -> list[str]:
    target = config._h2d_target  # type: ignore[attr-defined]
    cuda = "no CUDA"
    if torch.cuda.is_available():
        names = [torch.cuda.get_device_name(i) for i in range(torch.cuda.device_count())]
        cuda = f"CUDA {torch.version.cuda}, {len(names)} device(s): {', '.join(names)}"
    seed = config.getoption("hypothesis_seed", None)
    return [
        f"h2d-contracts target: {target.name} (version {target.version}; capabilities {sorted(target.capabilities)})",
        f"torch {torch.__version__}, {cuda}, pinned memory {'available' if target.pin_memory_available() else 'unavailable'}",
        f"hypothesis profile: {settings._current_profile}, seed: {seed}" + (f" (chosen at random for this run: --hypothesis-seed {seed} replays it)" if getattr(config, "_h2d_seed_chosen", False) else ""),
        f"python {platform.python_version()} on {platform.machine()}, H2D_IMPL={os.environ.get('H2D_IMPL', '<unset>')}",
        f"expected failures: {config._h2d_xfails_file or 'none'} ({len(config._h2d_xfails)} entries active here, {config._h2d_xfails_inactive} inactive by their if= conditions)",  # type: ignore[attr-defined]
    ]


def _kit_sessionstart(session: pytest.Session) -> None:
    """--h2d-example-db: a profile derived from the loaded one (after Hypothesis's plugin loaded --hypothesis-profile)."""
    choice = session.config.getoption("--h2d-example-db")
    if choice is None:
        return
    from hypothesis.database import DirectoryBasedExampleDatabase

    database = None if choice == "none" else DirectoryBasedExampleDatabase(choice)
    name = f"{settings._current_profile}+db"
    settings.register_profile(name, parent=settings.get_profile(settings._current_profile), database=database)
    settings.load_profile(name)


@pytest.hookimpl(wrapper=True)
def _kit_runtest_call(item: pytest.Item):
    try:
        return (yield)
    except NotApplicable as exc:
        pytest.skip(f"not applicable: {exc}")


class _OneWorkerPerGPU:
    """xdist hooks, optional (``optionalhook``): pytest-xdist may load after this plugin, or not at all (``-p no:xdist``)."""

    @staticmethod
    @pytest.hookimpl(optionalhook=True)
    def pytest_xdist_auto_num_workers(config: pytest.Config) -> int | None:
        """``-n auto`` on a CUDA host starts one worker per GPU (each worker owns its GPU, see pytest_configure)."""
        if not active(config):
            return None
        if torch.cuda.is_available() and torch.cuda.device_count() > 0:
            return torch.cuda.device_count()
        return None

    @staticmethod
    @pytest.hookimpl(optionalhook=True)
    def pytest_configure_node(node: object) -> None:
        """Hand the controller's answer to :func:`active` and its Hypothesis seed (given or chosen in pytest_configure) to each worker."""
        node.workerinput["h2d_active"] = active(node.config)  # type: ignore[attr-defined]
        node.workerinput["h2d_hypothesis_seed"] = node.config.getoption("hypothesis_seed", None)  # type: ignore[attr-defined]


def pytest_addhooks(pluginmanager: pytest.PytestPluginManager) -> None:
    # Registered whatever the plugin order: their hooks are optional, so pytest accepts them
    # when pytest-xdist or pytest-timeout is not (yet) loaded and calls them once it is.
    pluginmanager.register(_OneWorkerPerGPU(), "h2d-one-worker-per-gpu")
    pluginmanager.register(_TimeoutHooks(), "h2d-timeout")


# --------------------------------------------------------------------------- a hanging target ends the test, not the run

#: Per-test limit when neither --timeout, PYTEST_TIMEOUT nor a ``timeout`` ini value is given.
#: The slowest test of a passing run is a GPU mutant hunt (a few minutes of 100 ms busy
#: streams: reports/gpu/); CPU tests take seconds.
DEFAULT_TIMEOUT_S = 300.0
#: After the signal, how long a test may still run before the process dumps its stacks and
#: exits (a hang inside a C call that never returns to Python, e.g. a CUDA synchronize).
HARD_GRACE_S = float(os.environ.get("H2D_HARD_GRACE_S", "30"))
_HANGS: list[str] = []  # node ids of this process's tests that ran past their limit


class _TimeoutHooks:
    """pytest-timeout's timer, with an exception Hypothesis cannot swallow (an optional hook: called only when pytest-timeout is loaded).

    pytest-timeout's own ``signal`` method raises pytest's ``Failed``, which Hypothesis
    takes for a falsifying example: it then replays the hanging call to shrink it, with no
    timer left, and the run never ends (issue 10). Here the signal raises
    :class:`~contracts._report.TargetTimeout` (a ``BaseException``) naming the test, the
    limit, the kit's call in flight and where the target was; a second, thread timer
    ``HARD_GRACE_S`` later dumps every thread's stack, writes the report so far (when this
    process holds it) and exits the process: under ``pytest -n`` xdist reports the test as
    crashed and starts a fresh worker, so the rest of the run still completes.
    """

    @staticmethod
    @pytest.hookimpl(tryfirst=True, optionalhook=True)
    def pytest_timeout_set_timer(item: pytest.Item, settings) -> bool | None:
        if not active(item.config) or settings.method != "signal" or threading.current_thread() is not threading.main_thread():
            return None  # pytest-timeout's thread method: it dumps stacks and exits by itself

        def on_alarm(signum, frame) -> None:
            call = call_in_flight(frame)
            where = f"{frame.f_code.co_filename}:{frame.f_lineno} in {frame.f_code.co_name}" if frame is not None else "?"
            raise TargetTimeout(
                f"{item.nodeid} ran past its {settings.timeout:g} s limit (--timeout) and was cut off"
                f"\n  call in flight: {call or '(no check_* call was running: see where)'}\n  where: {where}",
                call,
            )

        hard = threading.Timer(settings.timeout + HARD_GRACE_S, _hard_exit, args=(item, settings.timeout))
        hard.daemon = True
        signal.signal(signal.SIGALRM, on_alarm)
        signal.setitimer(signal.ITIMER_REAL, settings.timeout)
        hard.start()

        def cancel() -> None:
            signal.setitimer(signal.ITIMER_REAL, 0)
            signal.signal(signal.SIGALRM, signal.SIG_DFL)
            hard.cancel()

        item.cancel_timeout = cancel  # pytest-timeout's pytest_timeout_cancel_timer calls it
        return True


def _hard_exit(item: pytest.Item, timeout: float) -> None:
    """The test did not return after its signal: stacks to stderr, the report so far, then exit (see _TimeoutHooks)."""
    frame = sys._current_frames().get(threading.main_thread().ident)
    message = (
        f"{item.nodeid} did not return {HARD_GRACE_S:g} s after its {timeout:g} s limit (a hang the signal could not interrupt): process ended"
        f"; call in flight: {call_in_flight(frame) or '(none of the kit checks)'}"
    )
    capman = item.config.pluginmanager.getplugin("capturemanager")
    if capman is not None:  # as pytest-timeout's thread method: else the capture swallows what follows
        capman.suspend_global_capture(in_=True)
    sys.stderr.write(f"\n+++ h2d-contracts: {message}\n")
    faulthandler.dump_traceback(file=sys.stderr, all_threads=True)
    collector = getattr(item.config, "_h2d_report", None)
    if collector is not None and item.config.getoption("--h2d-report"):
        collector.add(canonical_id(item), "call", "failed", {"h2d_errors": [message]}, message, None)
        collector.meta["cut_off"] = message
        collector.write(item.config.getoption("--h2d-report"))
    sys.stderr.flush()
    os._exit(3)


def _kit_runtest_setup(item: pytest.Item) -> None:
    limit = item.config.getoption("--h2d-max-hangs")
    if limit and len(_HANGS) >= limit:
        pytest.fail(
            f"not run: {len(_HANGS)} tests of this process already ran past --timeout ({', '.join(_HANGS)}); "
            f"the target looks hung, so the rest fail at once (--h2d-max-hangs={limit})",
            pytrace=False,
        )


# --------------------------------------------------------------------------- expected failures (xfails/<target>.txt)


def _load_xfails(config: pytest.Config) -> None:
    target = config._h2d_target  # type: ignore[attr-defined]
    option = config.getoption("--h2d-xfails")
    if option == "none":
        path = None
    elif option:
        path = Path(config.invocation_params.dir, option)  # a relative path is taken from where pytest was started
        if not path.is_file():
            raise pytest.UsageError(f"--h2d-xfails={option!r}: no such file")
    else:
        # The user's repository first, then the kit's own file for a built-in target.
        candidates = [Path(config.rootpath, "xfails", f"{target.name}.txt"), XFAILS_DIR / f"{target.name}.txt"]
        path = next((c for c in candidates if c.is_file()), None)
    try:
        entries, inactive = h2d_report.load_xfails(path, CATALOGUE) if path else ([], 0)
    except ValueError as exc:
        raise pytest.UsageError(str(exc)) from exc
    shown = None
    if path is not None:
        resolved, root = path.resolve(), Path(config.rootpath).resolve()
        shown = resolved.relative_to(root).as_posix() if resolved.is_relative_to(root) else str(path)
        entries = [dataclasses.replace(e, source=e.source.replace(path.as_posix(), shown)) for e in entries]
    config._h2d_xfails = entries  # type: ignore[attr-defined]
    config._h2d_xfails_file = shown  # type: ignore[attr-defined]
    config._h2d_xfails_inactive = inactive  # type: ignore[attr-defined]


def _item_contracts(item: pytest.Item) -> set[str]:
    marked = [cid for m in item.iter_markers("contract") for cid in m.args]
    return h2d_report.contracts_of_function(getattr(item, "function", None), marked)


#: Tests of the reference's own internals (golden error texts, staging traces, the chunked
#: path), by file of the suite: they import h2d_impl and never call --h2d-impl's target, so
#: under another target they are skipped, not run (on the H200, test_reference_impl's
#: 7-byte-chunk cases kept the vLLM stage of fc47aca and 40ddd12 from finishing).
REFERENCE_INTERNALS = ("test_h2d_impl_errors.py", "test_h2d_impl_trace.py", "test_reference_impl.py")


def _reference_internal(item: pytest.Item) -> bool:
    path = Path(item.path)
    return path.name in REFERENCE_INTERNALS and path.parent.resolve() == SUITE_DIR.resolve()


@pytest.hookimpl(tryfirst=True)
def _kit_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """Attach each test's contract ids and matching expectation entries (before -k/-m deselection)."""
    entries = config._h2d_xfails  # type: ignore[attr-defined]
    used: set[h2d_report.XfailEntry] = set()
    target_name = config._h2d_target.name  # type: ignore[attr-defined]
    if not CHECKOUT:
        # An installed kit runs the contracts; its meta-tests (mutant hunts, subprocess runs of
        # the checkout, tools/) test the kit itself and run from its checkout: deselected.
        kept = [i for i in items if not (_suite_item(i) and i.get_closest_marker("meta"))]
        if len(kept) != len(items):
            config.hook.pytest_deselected(items=[i for i in items if i not in kept])
            items[:] = kept
    for item in items:
        if target_name != "reference" and _reference_internal(item):
            item.add_marker(pytest.mark.skip(reason=f"a test of the reference's internals: it never calls the target ({target_name})"))
        ids = _item_contracts(item)
        item._h2d_contracts = ids  # type: ignore[attr-defined]
        item._h2d_id = canonical_id(item)  # type: ignore[attr-defined]
        item._h2d_xfail = h2d_report.match_xfails(item._h2d_id, ids, entries)  # type: ignore[attr-defined]
        used.update(item._h2d_xfail)  # type: ignore[attr-defined]
    for entry in entries:
        if entry not in used:
            warnings.warn(pytest.PytestWarning(f"{entry.source}: expected failure {entry.pattern!r} matched no collected test"))


@pytest.hookimpl(wrapper=True)
def _kit_runtest_makereport(item: pytest.Item, call: pytest.CallInfo):
    """Record contract ids and violations on the report (they travel to the xdist controller); apply expectations, strictly."""
    rep = yield
    exc = call.excinfo.value if call.excinfo is not None else None
    if isinstance(exc, TargetTimeout) and rep.when == "call":
        _HANGS.append(item.nodeid)
    ids = getattr(item, "_h2d_contracts", set())
    found = h2d_report.violations_of(exc) if rep.failed else []
    rep.user_properties.append(("h2d_contracts", sorted(ids)))
    rep.user_properties.append(("h2d_id", getattr(item, "_h2d_id", None) or canonical_id(item)))  # the id the report and expectations use
    if found:
        rep.user_properties.append(("h2d_violations", found))
    if rep.failed and exc is not None and not found and rep.when == "call":
        rep.user_properties.append(("h2d_errors", h2d_report.failure_text(exc)))
    matched = h2d_report.with_violated(list(getattr(item, "_h2d_xfail", [])), found, item.config._h2d_xfails)  # type: ignore[attr-defined]
    if not matched or rep.when != "call" or hasattr(rep, "wasxfail"):
        return rep
    reason = "; ".join(f"{e.source}: {e.pattern}: {e.reason}" for e in matched)
    if rep.failed:
        errors = h2d_report.failure_text(exc) if not found else []
        covering = h2d_report.expected_failure(matched, found, errors)
        if covering:
            rep.outcome = "skipped"
            rep.wasxfail = "; ".join(f"{e.source}: {e.pattern}: {e.reason}" for e in covering)
        else:
            violated = sorted({v["contract"] for v in found})
            rep.sections.append(("h2d expectations", f"UNEXPECTED: no entry's match= covers this failure (entries for this test: {reason}); violated {violated or 'no contract (another error)'}"))
    elif rep.passed and any(not e.is_contract for e in matched):
        rep.outcome = "failed"
        rep.longrepr = f"[XPASS(strict)] listed as an expected failure but passed: {reason}"
    return rep


# --------------------------------------------------------------------------- conformance report (--h2d-report)


def _report_meta(config: pytest.Config) -> dict:
    import hypothesis

    target = config._h2d_target  # type: ignore[attr-defined]
    cuda = "no CUDA"
    if torch.cuda.is_available():
        cuda = f"CUDA {torch.version.cuda}: " + ", ".join(torch.cuda.get_device_name(i) for i in range(torch.cuda.device_count()))
    if target.name.startswith("vllm"):
        from h2d_contracts.h2d_adapters.vllm_targets import repro_preamble

        preamble = repro_preamble(target)
    else:
        preamble = generic_preamble(target)
    seed = config.getoption("hypothesis_seed", None)
    return {
        "target": target.name,
        "target_version": target.version,
        "capabilities": sorted(target.capabilities),
        "notes": target.notes,
        "pinned": "available" if target.pin_memory_available() else "unavailable (the target behaves as on a machine without pinned memory)",
        "torch": torch.__version__,
        "python": platform.python_version(),
        "hypothesis": hypothesis.__version__,
        "profile": settings._current_profile,
        "seed": seed,
        "seed_chosen_at_random": bool(getattr(config, "_h2d_seed_chosen", False)),
        "machine": f"{platform.system()} {platform.machine()}, {os.cpu_count()} CPUs, {cuda}",
        "command": shlex.join(["pytest", *config.invocation_params.args]),
        "xfails_file": config._h2d_xfails_file,  # type: ignore[attr-defined]
        "date": datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%d %H:%M UTC"),
        "repro_preamble": preamble,
    }


def generic_preamble(target: Any) -> str:
    """The lines to paste before a failure's ``call:`` line, for any target ``load_target`` can load.

    ``call:`` lines use ``async_tensor_h2d``, ``async_tensor_h2d_cpu``, ``CpuGpuBuffer``,
    ``torch``, ``np`` and ``struct`` (NaN payloads); the target is loaded by its
    ``--h2d-impl`` spec, as the run loaded it (its module must be importable the same way).
    """
    spec = target.spec or target.name
    return (
        "import struct\nimport numpy as np\nimport torch\n"
        "from h2d_contracts.contracts import load_target\n"
        f"_t = load_target({spec!r})\n"
        "async_tensor_h2d, async_tensor_h2d_cpu, CpuGpuBuffer = _t.async_tensor_h2d, _t.cpu_variant, _t.buffer_cls"
    )


class _ReportPlugin:
    """Feeds every test report (on the controller under xdist) into the ConformanceReport."""

    def __init__(self, collector: h2d_report.ConformanceReport) -> None:
        self.collector = collector

    def pytest_runtest_logreport(self, report: pytest.TestReport) -> None:
        props = {k: v for k, v in report.user_properties if k.startswith("h2d_") and k != "h2d_id"}
        nodeid = dict(report.user_properties).get("h2d_id", report.nodeid)
        if report.skipped and isinstance(report.longrepr, tuple):
            text = str(report.longrepr[2])
        else:
            text = report.longreprtext or ""
        self.collector.add(nodeid, report.when, report.outcome, props, text, getattr(report, "wasxfail", None))


@pytest.hookimpl(tryfirst=True)
def _kit_sessionfinish(session: pytest.Session, exitstatus: int) -> None:
    """Contract-level strictness, unmatched entries, then the report (--h2d-report)."""
    config = session.config
    collector = getattr(config, "_h2d_report", None)
    if collector is None:
        return
    ran = set(collector.tests)
    tested = {c for t in collector.tests.values() for c in t["contracts"]}
    entries = config._h2d_xfails  # type: ignore[attr-defined]
    collector.unmatched_xfails = [
        f"{e.source}: {e.pattern}" for e in entries if not (e.pattern in tested if e.is_contract else any(n.startswith(e.pattern) for n in ran))
    ]
    # A contract-id entry is strict at the contract's level: some test of its contract must have
    # failed as expected (by any entry of that contract). Not per entry: a failing test reports
    # only its first violation, and a property's search is random, so one entry's kind missing
    # from one run is no evidence of a fix (CI at random seeds: the ndarray-overlap kind of
    # input-untouched was found by test_input_untouched[cpu] in about 1 run of 5). Those entries
    # are listed as not witnessed, in the terminal and the report.
    reasons = [t["reason"] or "" for t in collector.tests.values() if t["status"] == "xfailed"]
    witnessed = {e for e in entries if e.is_contract and any(f"{e.source}: {e.pattern}:" in r for r in reasons)}
    covered = {e.pattern for e in witnessed}
    xpassed = [f"{e.source}: {e.pattern}" for e in entries if e.is_contract and e.pattern in tested and e.pattern not in covered]
    collector.xpassed_contracts = xpassed
    collector.unwitnessed_xfails = [
        f"{e.source}: {e.pattern} match={e.match}" for e in entries if e.is_contract and e.pattern in covered and e not in witnessed
    ]
    tr = config.pluginmanager.get_plugin("terminalreporter")
    write = tr.write_line if tr is not None else (lambda line, **kw: print(line, file=sys.stderr))
    for line in collector.unmatched_xfails:
        write(f"h2d-contracts WARNING: expected failure matched no test that ran: {line}", yellow=True)
    for line in collector.unwitnessed_xfails:
        write(f"h2d-contracts note: expected failure not witnessed this run (its contract failed as expected by another entry): {line}", yellow=True)
    for line in xpassed:
        write(f"h2d-contracts [XPASS(strict)] contract listed as an expected failure but none of its tests failed: {line}", red=True)
    if any(t["status"] == "failed" for t in collector.tests.values()) and collector.meta.get("repro_preamble"):
        config._h2d_repro = collector.meta["repro_preamble"]  # type: ignore[attr-defined] # shown by _kit_terminal_summary
    if xpassed and session.exitstatus == pytest.ExitCode.OK:
        session.exitstatus = pytest.ExitCode.TESTS_FAILED
    if config.getoption("--h2d-report"):
        collector.meta["exitstatus"] = int(session.exitstatus)
        jpath, mpath = collector.write(config.getoption("--h2d-report"))
        write(f"h2d-contracts report: {jpath} and {mpath}")


def _kit_terminal_summary(terminalreporter: Any, exitstatus: int, config: pytest.Config) -> None:
    """After the failures: the preamble that makes a ``call:`` line runnable, and how to replay a test."""
    preamble = getattr(config, "_h2d_repro", None)
    if not preamble:
        return
    terminalreporter.section("h2d-contracts: reproduce a failure")
    terminalreporter.write_line("Paste these lines into Python first, then a failure's `call:` line:")
    for line in preamble.splitlines():
        terminalreporter.write_line(f"    {line}")
    seed = config.getoption("hypothesis_seed", None)
    terminalreporter.write_line(f"Replay a failing test: the same pytest command with its test id and --hypothesis-seed {seed}")


class _KitSession:
    """The session hooks of a kit session, registered by pytest_configure only when :func:`active` says so."""

    pytest_report_header = staticmethod(_kit_report_header)
    pytest_sessionstart = staticmethod(_kit_sessionstart)
    pytest_runtest_call = staticmethod(_kit_runtest_call)
    pytest_runtest_setup = staticmethod(_kit_runtest_setup)
    pytest_collection_modifyitems = staticmethod(_kit_collection_modifyitems)
    pytest_runtest_makereport = staticmethod(_kit_runtest_makereport)
    pytest_sessionfinish = staticmethod(_kit_sessionfinish)
    pytest_terminal_summary = staticmethod(_kit_terminal_summary)
