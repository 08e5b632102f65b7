"""Graph optimizers over GraphDefs: a Grappler-like meta-optimizer and its built-in passes.

``grappler`` knows only ``framework`` (and the op definitions); it never imports the
runtime. Constant folding evaluates through a host evaluator the runtime hands in.
Import the submodules (``item``, ``meta_optimizer``, ``config``, ...) directly: this
package stays empty so that ``import modtensor`` does not load the optimizer.
"""
