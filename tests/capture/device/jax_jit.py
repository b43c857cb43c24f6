"""JAX pipeline for kdet capture --builds: two jitted functions (XLA, ptxas)."""
import jax
import jax.numpy as jnp


@jax.jit
def f(x, w):
    return jax.nn.gelu(x @ w).sum(axis=0)


@jax.jit
def g(x):
    return jnp.cumsum(jnp.sin(x) * 2.0)


x = jnp.ones((128, 256))
w = jnp.ones((256, 128))
print("jax: ok", float(f(x, w)[0]), float(g(jnp.arange(1000.0))[-1]))
