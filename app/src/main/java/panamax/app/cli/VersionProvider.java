package panamax.app.cli;

import picocli.CommandLine.IVersionProvider;

/** The version of the panamax.app module, as recorded in its module descriptor. */
public final class VersionProvider implements IVersionProvider {
    @Override
    public String[] getVersion() {
        var descriptor = VersionProvider.class.getModule().getDescriptor();
        String version = descriptor == null ? "development build" : descriptor.rawVersion().orElse("unversioned");
        return new String[] {"panamax " + version + " on Java " + Runtime.version()};
    }
}
