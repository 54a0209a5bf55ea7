/**
 * A third-party model plugin: GPT-2 (learned absolute positions, LayerNorm, GELU-tanh, fused
 * {@code c_attn} Conv1D weights stored [in, out]). Built on panamax.model.support; built to its own
 * jar and discovered when dropped into a {@code plugins/} folder.
 */
module panamax.example.gpt2 {
    requires panamax.model.support;

    provides panamax.api.model.ModelPlugin with panamax.example.gpt2.Gpt2Plugin;
}
