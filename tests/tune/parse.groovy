// parse.groovy FILE... - each file is Groovy that compiles (Nextflow's
// configuration is Groovy read by its own ConfigSlurper): parsed, never
// run.  A syntax error is an exception: groovy exits non-zero.
args.each { path ->
    new GroovyShell().parse(new File(path).text)
    println "${path}: Groovy that compiles"
}
