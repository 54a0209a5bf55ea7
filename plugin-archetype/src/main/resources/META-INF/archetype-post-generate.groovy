// Runs after archetype:generate. Every kind's sources were generated under kinds/<kind>/; this keeps
// the chosen kind's (moved to the project root, its dependencies.xml spliced into pom.xml) and
// deletes the rest. A new kind is one folder, archetype-resources/kinds/<kind>/ (module-info.java,
// provider, kit test, README.md, dependencies.xml), plus its name in KINDS.
import java.nio.file.Files
import java.util.regex.Matcher
import java.util.regex.Pattern

final List<String> KINDS = ['codec', 'layout', 'model']

File root = new File(request.outputDirectory, request.artifactId)
String kind = request.properties.getProperty('kind')
if (!KINDS.contains(kind)) {
    root.deleteDir()
    throw new IllegalArgumentException("-Dkind=" + kind + " is not a plugin kind of this archetype: expected one of "
            + KINDS.join(', ') + " (nothing was generated)")
}

File kinds = new File(root, 'kinds')
File chosen = new File(kinds, kind)
File pom = new File(root, 'pom.xml')
File dependencies = new File(chosen, 'dependencies.xml')
Matcher marker = Pattern.compile('(?m)^[ \\t]*<!-- the dependencies of the plugin kind -->\\R').matcher(pom.getText('UTF-8'))
if (!marker.find()) throw new IllegalStateException(pom.toString() + " has no line '<!-- the dependencies of the plugin kind -->' for the " + kind + " dependencies")
pom.setText(marker.replaceFirst(Matcher.quoteReplacement(dependencies.getText('UTF-8'))), 'UTF-8')
dependencies.delete()

chosen.eachFileRecurse(groovy.io.FileType.FILES) { File f ->
    File target = new File(root, chosen.toPath().relativize(f.toPath()).toString())
    target.parentFile.mkdirs()
    Files.move(f.toPath(), target.toPath())
}
kinds.deleteDir()
new File(root, 'mvnw').setExecutable(true, false)
