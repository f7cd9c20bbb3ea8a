"""The machinery the contracts run on (``h2d_contracts.harness``), below the contracts and above the strategies.

- :mod:`.target`: the :class:`~.target.Target` protocol (users import it as
  ``h2d_contracts.contracts.Target``), the record of the last call, fresh processes
- :mod:`.checks`: the ``@check`` decorator every ``check_*`` wears (snapshot, reproduction)
- :mod:`.calling`: calling a target as a contract means it (adapters' names, the domain)
- :mod:`.oracle`: what a call must return (dtype resolution, bit-exact comparison)
- :mod:`.runner`: properties under ``@given``, kinds of failure, settings
- :mod:`.suite`: ``contract_test``: a property as a pytest test that is a Hypothesis test
- :mod:`.violations`: :class:`~.violations.ContractViolation` and its kin
- :mod:`.repro`: reproductions: capture of the arguments, scripts, verification
- :mod:`.registry`, :mod:`.domain`, :mod:`.contexts`, :mod:`.accounting`: the property
  registry, input domains, calling contexts, and the count of calls into a target

Imports run one way: ``h2d_impl <- strategies <- harness <- contracts <- tests, plugin``
(CONTRIBUTING.md).
"""
