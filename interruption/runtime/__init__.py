"""The runtime: what runs a pause and its answer, on the core's public API.

Tools and their dispatch, the loop, approvals and schedules, sessions,
stores, sealed turns, the adapters' one answering sequence
(`interruption.runtime.admission`) and the bridge every door offers
(`interruption.runtime.bridge`). The core (`interruption`'s own modules)
imports nothing from here; the adapters and the applications stand on it.
Every public name is re-exported by the façade, ``interruption``.
"""
