"""Learning Oh Hell on the batched simulator: a policy-value network, cloning a
bot, and proximal policy optimisation against a league of opponents.

Everything here needs PyTorch (the ``train`` extra); the bots it produces do
not: ``net.save_policy_file`` writes a NumPy file that ``ohhell.bots.learned``
plays with NumPy alone. The same code runs on the CPU and, when one is
present, on a GPU (``--device``). See docs/training.md.
"""
