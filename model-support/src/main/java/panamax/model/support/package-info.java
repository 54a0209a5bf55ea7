/**
 * What model plugins share, and {@link panamax.model.support.LoadedModel}: the runtime model that
 * owns a checkpoint's mapped files and the weights loaded from them.
 *
 * {@snippet :
 * HfConfig config = HfConfig.read(directory.resolve("config.json"));
 * return LoadedModel.load(spec, directory, backend, options, QuantizationConfig.read(config),
 *         source -> MyWeights.load(config, source), weights -> new MyGraph(config, weights, backend));
 * }
 */
package panamax.model.support;
