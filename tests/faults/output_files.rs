//! Output files: a write error names the file, not its temporary; an output that cannot be
//! made is told at once; a run that fails midway leaves the file untouched and one that succeeds
//! replaces it, permissions kept; the input can be the output; pipes, links and descriptors
//! named as outputs are written, not replaced.

use super::*;

#[test]
fn a_write_error_on_an_output_file_names_the_file_not_its_temporary() {
    // A full file system, as a file size limit: writes fail with EFBIG (SIGXFSZ ignored), just
    // as they fail with ENOSPC on a full disk.
    for name in ALL {
        let dir = tempfile::tempdir().unwrap();
        let target = dir.path().join("out.txt");
        keep_precious(&target);
        let script = "ulimit -f 8; trap '' XFSZ; exec \"$0\" \"$@\"";
        let mut child = Command::new("sh")
            .args(["-c", script])
            .arg(binary(name))
            .args(["-o", path_str(&target)])
            .stdin(Stdio::piped())
            .stdout(Stdio::null())
            .stderr(Stdio::piped())
            .spawn()
            .expect("spawn");
        let feeder = feed(&mut child, large_input(name));
        let stderr = read_stderr(&mut child);
        let status = wait_briefly(&mut child);
        feeder.join().unwrap();
        assert_eq!(
            (status.code(), stderr.join().unwrap()),
            (
                Some(1),
                format!(
                    "{name}: error: error writing '{}': File too large (os error 27)\n",
                    target.display()
                )
            ),
            "{name}"
        );
        assert_untouched(&target, name);
        assert_eq!(entries(dir.path()), ["out.txt"], "{name}: no temporary file left");
    }
}

// ---------------------------------------------------------------------------------------------
// Output that cannot be created.

#[test]
fn output_into_a_missing_directory_or_onto_a_directory_is_exit_1() {
    let dir = tempfile::tempdir().unwrap();
    let missing = dir.path().join("no-such-dir").join("out.txt");
    for name in ALL {
        let result = run(name, &["-o", path_str(&missing)], sample(name).0);
        assert_eq!(result.code, Some(1), "{name}");
        assert_eq!(
            result.stderr,
            format!(
                "{name}: error: cannot create output '{}': No such file or directory (os error 2)\n",
                missing.display()
            )
        );
        let result = run(name, &["-o", path_str(dir.path())], sample(name).0);
        assert_eq!(result.code, Some(1), "{name}");
        assert_eq!(
            result.stderr,
            format!(
                "{name}: error: cannot create output '{}': is a directory\n",
                dir.path().display()
            )
        );
        assert!(result.stdout.is_empty());
    }
    assert!(!dir.path().join("no-such-dir").exists());
    assert!(entries(dir.path()).is_empty(), "nothing left behind");
}

/// The commands that look at their input's start (for a UTF-16 mark) do it once the output is
/// open: an output that cannot be made is told at once, while the input is a pipe that is
/// kept open and has sent nothing yet, not when it sends something.
#[test]
fn an_output_that_cannot_be_made_is_told_before_the_input_is_waited_for() {
    let dir = tempfile::tempdir().unwrap();
    let missing = dir.path().join("no-such-dir").join("out.txt");
    let gold = dir.path().join("gold");
    std::fs::write(&gold, "a\tb\n").unwrap();
    let commands: [(&str, &[&str]); 6] = [
        ("sh-tokenize", &[]),
        ("sh-cluster", &[]),
        ("sh-fingerprint", &["-j", "1"]),
        ("sh-fingerprint", &["-j", "2"]),
        ("sh-fingerprint", &["-j", "2", "-i", "-"]),
        ("sh-score", &["--gold", path_str(&gold)]),
    ];
    for (name, args) in commands {
        let args = [args, &["-o", path_str(&missing)]].concat();
        let mut child = spawn(name, &args, Stdio::null());
        let stdin = child.stdin.take(); // kept open: nothing is sent, and no end
        let stderr = read_stderr(&mut child);
        let status = wait_briefly(&mut child);
        drop(stdin);
        assert_eq!(status.code(), Some(1), "{name} {args:?}");
        let expected = format!(
            "{name}: error: cannot create output '{}': No such file or directory (os error 2)\n",
            missing.display()
        );
        assert_eq!(stderr.join().unwrap(), expected);
    }
}

// ---------------------------------------------------------------------------------------------
// An existing --output file is replaced only by a run that succeeds.

#[test]
fn a_run_that_fails_midway_leaves_the_output_file_untouched() {
    for name in ["sh-tokenize", "sh-hash", "sh-compute", "sh-fingerprint", "sh-pairs", "sh-cluster"]
    {
        let dir = tempfile::tempdir().unwrap();
        let target = dir.path().join("out.txt");
        keep_precious(&target);
        // Many good lines first, so that output was written before the error.
        let (good, bad) = good_and_bad_lines(name);
        let input = [good.repeat(100_000), bad.to_string()].concat();
        let mut args = vec!["-o", path_str(&target)];
        args.extend_from_slice(bad_flags(name));
        let result = run(name, &args, input);
        let line = 100_001;
        result.failure(1, &format!("{name}: error: line {line}: "));
        assert_untouched(&target, name);
        assert_eq!(entries(dir.path()), ["out.txt"], "{name}: no temporary file left");
    }
}

#[test]
fn a_successful_run_replaces_the_output_keeping_its_permissions() {
    use std::os::unix::fs::PermissionsExt;
    for name in ALL {
        let dir = tempfile::tempdir().unwrap();
        let target = dir.path().join("out.txt");
        fs::write(&target, "old\n").unwrap();
        fs::set_permissions(&target, fs::Permissions::from_mode(0o640)).unwrap();
        let input = sample(name).0.repeat(2);
        run(name, &["-o", path_str(&target)], input).success();
        let written = fs::read_to_string(&target).unwrap();
        assert_eq!(written.lines().next(), Some(sample(name).1), "{name}");
        assert_eq!(fs::metadata(&target).unwrap().permissions().mode() & 0o777, 0o640, "{name}");
        assert_eq!(entries(dir.path()), ["out.txt"], "{name}");
    }
}

#[test]
fn the_input_file_can_be_the_output_file() {
    for name in ["sh-tokenize", "sh-shingle", "sh-hash", "sh-compute"] {
        let dir = tempfile::tempdir().unwrap();
        let file = dir.path().join("data.txt");
        fs::write(&file, sample(name).0.repeat(50_000)).unwrap();
        run(name, &["-i", path_str(&file), "-o", path_str(&file)], "").success();
        let expected = format!("{}\n", sample(name).1).repeat(50_000);
        assert!(fs::read_to_string(&file).unwrap() == expected, "{name}: rewritten in place");
        assert_eq!(entries(dir.path()), ["data.txt"]);
    }
}

/// An output written in place to the file being read would read what it wrote: with `< f >>
/// f`, `-i f >> f` or `-i f -o /dev/fd/3 3>>f` a run would fill the disk (as `cat f >> f`
/// would), with `< f 1<>f` overwrite what it has yet to read. Each is refused before anything
/// is written, by the commands that read all before writing too (one rule for all, as cat's):
/// exit 1, one error naming both, the file as it was. A file the shell emptied
/// (`< f > f`) holds nothing to read, and `-i f -o f` writes a new file (test above): both run.
#[test]
fn an_output_in_place_to_the_input_file_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("data.txt");
    let path = path_str(&file);
    // sh-df, as sh-pairs and sh-cluster, reads all before writing: refused all the same.
    for name in ALL.into_iter().chain(["sh-df"]) {
        let input = match name {
            "sh-pairs" => "5\n".repeat(2),
            "sh-df" => "1 2\n".repeat(1000),
            _ => sample(name).0.repeat(1000),
        };
        let stdin = "standard output: it is the input file (standard input)";
        let named = format!("standard output: it is the input file ('{path}')");
        let descriptor = format!("'/dev/fd/3': it is the input file ('{path}')");
        for (script, said) in [
            ("\"$0\" < \"$1\" >> \"$1\"", stdin),
            ("\"$0\" -i \"$1\" >> \"$1\"", &named),
            ("\"$0\" -i \"$1\" -o /dev/fd/3 3>> \"$1\"", &descriptor),
            ("\"$0\" < \"$1\" 1<> \"$1\"", stdin),
        ] {
            fs::write(&file, &input).unwrap();
            let out = Command::new("sh")
                .args(["-c", script])
                .arg(binary(name))
                .arg(path)
                .output()
                .unwrap();
            let stderr = String::from_utf8_lossy(&out.stderr);
            let want = format!(
                "{name}: error: cannot write {said}; written as it is read, it would read the output again or lose the input\n"
            );
            assert_eq!(
                (out.status.code(), stderr.as_ref()),
                (Some(1), want.as_str()),
                "{name}: {script}"
            );
            assert!(fs::read_to_string(&file).unwrap() == input, "{name}: {script}: file changed");
        }
        fs::write(&file, &input).unwrap();
        let out = Command::new("sh")
            .args(["-c", "\"$0\" < \"$1\" > \"$1\""])
            .arg(binary(name))
            .arg(path)
            .output()
            .unwrap();
        assert!(out.status.success(), "{name}: < f > f: {}", String::from_utf8_lossy(&out.stderr));
        // What each writes for no input: sh-df its table's first line alone.
        let empty = if name == "sh-df" { "#documents\t0\n" } else { "" };
        assert_eq!(fs::read_to_string(&file).unwrap(), empty, "{name}: < f > f");
    }
}

/// The files a command reads beside its input (a table of document frequencies, a corpus, the
/// gold pairs, an index's files) are held to the same rule: `sh-weight --df t >> t` would have
/// appended the weighted hashes to the table it weighs by. Each command gets an input that
/// has output, so that a run not refused would change the file. Refused before anything is
/// written, the file as it was, the error naming the file as what it is; written to another
/// file, the same command runs and writes something.
#[test]
fn an_output_in_place_to_a_file_read_beside_the_input_is_refused() {
    let dir = tempfile::tempdir().unwrap();
    let file = dir.path().join("read.txt");
    let input = dir.path().join("input.txt");
    let other = dir.path().join("other.txt");
    let table = run("sh-df", &[], "1 2\n3 1\n").success().to_string();
    for (name, options, what, input_text, contents) in [
        ("sh-weight", vec!["--df"], "the table of --df", "d\t1 2\n", table.as_str()),
        ("sh-fingerprint", vec!["--df"], "the table of --df", "d\tsome words\n", &table),
        ("sh-df", vec!["--merge"], "a table of --merge", "", &table),
        ("sh-pairs", vec!["--against"], "the corpus of --against", "5\n", "5\n7\n"),
        ("sh-score", vec!["--gold"], "the gold pairs of --gold", "a\tb\n", "a\tb\n"),
    ] {
        fs::write(&input, input_text).unwrap();
        fs::write(&file, contents).unwrap();
        let path = path_str(&file);
        let mut args: Vec<&str> = options.clone();
        args.push(path);
        let said = format!("{what} ('{path}')");
        refused_in_place(name, &args, &input, &file, contents, &said, true);
        // sh-df --merge reads its tables only.
        if !input_text.is_empty() {
            args.extend(["-i", path_str(&input)]);
        }
        args.extend(["-o", path_str(&other)]);
        let out = Command::new(binary(name)).args(&args).output().unwrap();
        assert!(out.status.success(), "{name}: {}", String::from_utf8_lossy(&out.stderr));
        assert!(!fs::read(&other).unwrap().is_empty(), "{name}: its output");
    }

    // The files of an index: sh-pairs --against INDEX and sh-index query INDEX.
    let index = dir.path().join("index");
    run("sh-index", &["build", "-q", "-k", "3", "-o", path_str(&index)], "a\t5\nb\t7\n").success();
    fs::write(&input, "q\t5\n").unwrap();
    let mut files: Vec<PathBuf> =
        fs::read_dir(&index).unwrap().map(|e| e.unwrap().path()).collect();
    // What a query reads: the manifest and the segments.
    let name = |f: &PathBuf| f.file_name().unwrap().to_str().unwrap().to_string();
    files.retain(|f| name(f) == "MANIFEST" || name(f).starts_with("seg-"));
    assert!(files.len() >= 2, "a manifest and a segment at least: {files:?}");
    for file in &files {
        let contents = fs::read(file).unwrap();
        let path = path_str(file);
        for (name, args, what) in [
            ("sh-pairs", vec!["--against", path_str(&index)], "a file of the index of --against"),
            ("sh-index", vec!["query", path_str(&index)], "a file of the index"),
        ] {
            let said = format!("{what} ('{path}')");
            // (`-o /dev/fd/3 3>> FILE` names the file through the descriptor's link, and is
            // refused before any work as an output inside the index.)
            refused_in_place(name, &args, &input, file, &contents, &said, false);
        }
    }
    // A file of the directory that no query reads (a stranger, the writers' lock) is not the
    // index's: answers appended to it are written, as to a file outside the index.
    let stranger = index.join("notes.txt");
    let lock: Vec<PathBuf> = fs::read_dir(&index)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|f| name(f).contains("LOCK") || name(f).contains("lock"))
        .collect();
    for target in [&stranger, &other].into_iter().chain(&lock) {
        for (name, args) in [
            ("sh-pairs", vec!["--against", path_str(&index)]),
            ("sh-index", vec!["query", path_str(&index)]),
        ] {
            fs::write(target, "before\n").unwrap();
            let out = Command::new("sh")
                .args(["-c", "\"$0\" \"$@\" < \"$IN\" >> \"$OUT\""])
                .arg(binary(name))
                .args(&args)
                .env("IN", &input)
                .env("OUT", target)
                .output()
                .unwrap();
            assert!(
                out.status.success(),
                "{name} >> {target:?}: {}",
                String::from_utf8_lossy(&out.stderr)
            );
            let written = fs::read_to_string(target).unwrap();
            assert!(written.starts_with("before\nq\t") && written.len() > 9, "{name}: {written:?}");
        }
    }
}

/// Runs `name ARGS < input >> file` and, with `descriptor`, `name ARGS -o /dev/fd/3 < input
/// 3>> file`: each is refused, naming `file` as `said`, and `file` keeps `contents`.
fn refused_in_place(
    name: &str,
    args: &[&str],
    input: &Path,
    file: &Path,
    contents: impl AsRef<[u8]>,
    said: &str,
    descriptor: bool,
) {
    let scripts = [
        ("\"$0\" \"$@\" < \"$IN\" >> \"$OUT\"", "standard output"),
        ("\"$0\" \"$@\" -o /dev/fd/3 < \"$IN\" 3>> \"$OUT\"", "'/dev/fd/3'"),
    ];
    for (script, output) in &scripts[..1 + usize::from(descriptor)] {
        let out = Command::new("sh")
            .args(["-c", script])
            .arg(binary(name))
            .args(args)
            .env("IN", input)
            .env("OUT", file)
            .output()
            .unwrap();
        let stderr = String::from_utf8_lossy(&out.stderr);
        let want = format!(
            "{name}: error: cannot write {output}: it is {said}; written as it is read, it would read the output again or lose the input\n"
        );
        assert_eq!(
            (out.status.code(), stderr.as_ref()),
            (Some(1), want.as_str()),
            "{name}: {script}"
        );
        assert!(fs::read(file).unwrap() == contents.as_ref(), "{name}: {script}: file changed");
    }
}

#[test]
fn an_output_that_is_a_pipe_is_written_not_replaced_and_a_link_stays_a_link() {
    use std::os::unix::fs::FileTypeExt;
    let dir = tempfile::tempdir().unwrap();
    // A named pipe, like /dev/null or /dev/stdout: renaming over it would replace it.
    let fifo = dir.path().join("fifo");
    make_fifo(&fifo);
    let reader = std::thread::spawn({
        let fifo = fifo.clone();
        move || fs::read_to_string(fifo).unwrap()
    });
    run("sh-tokenize", &["-o", path_str(&fifo)], "Hello, World!\n").success();
    assert_eq!(reader.join().unwrap(), "hello world\n");
    assert!(fs::metadata(&fifo).unwrap().file_type().is_fifo(), "still a pipe");

    let real = dir.path().join("real.txt");
    fs::write(&real, "old\n").unwrap();
    let link = dir.path().join("link.txt");
    std::os::unix::fs::symlink("real.txt", &link).unwrap();
    run("sh-tokenize", &["-o", path_str(&link)], "New\n").success();
    assert!(fs::symlink_metadata(&link).unwrap().file_type().is_symlink(), "still a link");
    assert_eq!(fs::read_to_string(&real).unwrap(), "new\n");
    assert_eq!(entries(dir.path()), ["fifo", "link.txt", "real.txt"]);

    // A link to nothing yet, directly and through a second link: the output is made where the
    // chain ends, as the shell's `>` makes it, and the links stay links.
    let dangling = dir.path().join("dangling.txt");
    std::os::unix::fs::symlink("sub/made.txt", &dangling).unwrap();
    let twice = dir.path().join("twice.txt");
    std::os::unix::fs::symlink("dangling.txt", &twice).unwrap();
    let out = run("sh-tokenize", &["-o", path_str(&twice)], "Made\n");
    assert!(out.stderr.contains("cannot create output"), "no such directory: {}", out.stderr);
    fs::create_dir(dir.path().join("sub")).unwrap();
    run("sh-tokenize", &["-o", path_str(&twice)], "Made\n").success();
    assert_eq!(fs::read_to_string(dir.path().join("sub/made.txt")).unwrap(), "made\n");
    for link in [&dangling, &twice] {
        assert!(fs::symlink_metadata(link).unwrap().file_type().is_symlink(), "still a link");
    }
    // A path that can only name a directory that is not there (`new/`, or a link to one) is
    // an error before any work, and nothing is made.
    let to_dir = dir.path().join("to-dir");
    std::os::unix::fs::symlink("new-dir/", &to_dir).unwrap();
    let new_dir = format!("{}/new-dir/", path_str(dir.path()));
    let to_dir_now = format!("{}/", path_str(&dir.path().join("other")));
    for target in [path_str(&to_dir), &new_dir, &to_dir_now] {
        let out = run("sh-tokenize", &["-o", target], "x\n");
        assert_eq!(out.code, Some(1), "{target}: {}", out.stderr);
        assert!(out.stderr.contains("cannot create output"), "{target}: {}", out.stderr);
        assert!(out.stderr.contains("is a directory"), "{target}: {}", out.stderr);
    }
    assert!(!dir.path().join("new-dir").exists() && !dir.path().join("other").exists());
    // A loop of links is an error that replaces neither.
    let (a, b) = (dir.path().join("loop-a"), dir.path().join("loop-b"));
    std::os::unix::fs::symlink("loop-b", &a).unwrap();
    std::os::unix::fs::symlink("loop-a", &b).unwrap();
    let out = run("sh-tokenize", &["-o", path_str(&a)], "x\n");
    assert_eq!(out.code, Some(1), "{}", out.stderr);
    assert!(out.stderr.contains("symbolic links"), "{}", out.stderr);
    assert!(fs::symlink_metadata(&a).unwrap().file_type().is_symlink(), "still a link");
}

/// `-o /dev/stdout` (or `/dev/stderr`, `/dev/fd/N`) with that stream on a regular file writes to
/// the stream, at the shell's offset, and does not replace the file: what the shell wrote before
/// and after stays, and nothing is lost to a file no longer there.
#[test]
fn an_output_named_by_an_open_descriptor_is_written_to_it() {
    let dir = tempfile::tempdir().unwrap();
    for (name, flag) in
        [("/dev/stdout", "stdout"), ("/dev/stderr", "stderr"), ("/dev/fd/1", "stdout")]
    {
        for command in ["sh-tokenize", "sh-compute", "sh-pairs"] {
            let path = dir.path().join("shared.txt");
            let mut file = fs::File::create(&path).unwrap();
            file.write_all(b"before\n").unwrap();
            let stream = || Stdio::from(file.try_clone().unwrap());
            let mut child = Command::new(binary(command));
            child.args(["-o", name]).stdin(Stdio::piped());
            match flag {
                "stdout" => child.stdout(stream()).stderr(Stdio::null()),
                _ => child.stderr(stream()).stdout(Stdio::null()),
            };
            let mut child = child.spawn().unwrap();
            // sh-pairs' sample is one record of a pair: the input holds it twice.
            let input = sample(command).0.repeat(if command == "sh-pairs" { 2 } else { 1 });
            child.stdin.take().unwrap().write_all(input.as_bytes()).unwrap();
            assert!(child.wait().unwrap().success(), "{command} -o {name}");
            file.write_all(b"after\n").unwrap();
            let want = format!("before\n{}\nafter\n", sample(command).1);
            assert_eq!(fs::read_to_string(&path).unwrap(), want, "{command} -o {name}");
            assert_eq!(entries(dir.path()), ["shared.txt"], "{command} -o {name}");
        }
    }
    // A descriptor above the standard three, open for writing (`3>f`, `3>>f`), is written at
    // the offset it shares with the shell; one open for reading only (`3<f`) or a regular file
    // open for both (`3<>f`) names its file, which is replaced, as before.
    for command in ["sh-tokenize", "sh-compute", "sh-pairs"] {
        let path = dir.path().join("three.txt");
        let input = sample(command).0.repeat(if command == "sh-pairs" { 2 } else { 1 });
        for (redirect, want) in [
            ("3>", format!("before\n{}\nafter\n", sample(command).1)),
            ("3>>", format!("kept\nbefore\n{}\nafter\n", sample(command).1)),
            ("3<", format!("{}\n", sample(command).1)),
            // Reading and writing a regular file: as likely the input as the output.
            ("3<>", format!("{}\n", sample(command).1)),
        ] {
            fs::write(&path, "kept\n").unwrap();
            let script = format!(
                "{{ echo before >&3 2>/dev/null; \"$0\" -o /dev/fd/3; s=$?; echo after >&3 \
                 2>/dev/null; exit $s; }} {redirect}'{}'",
                path_str(&path)
            );
            let mut child = Command::new("sh")
                .arg("-c")
                .arg(script)
                .arg(binary(command))
                .stdin(Stdio::piped())
                .spawn()
                .unwrap();
            child.stdin.take().unwrap().write_all(input.as_bytes()).unwrap();
            assert!(child.wait().unwrap().success(), "{command} -o /dev/fd/3 {redirect}");
            assert_eq!(fs::read_to_string(&path).unwrap(), want, "{command} {redirect}");
            assert_eq!(entries(dir.path()), ["shared.txt", "three.txt"], "{command} {redirect}");
        }
        fs::remove_file(&path).unwrap();
    }
    // A stream closed at start is an error (exit 1, with nowhere to say why for standard
    // error), not the /dev/null the runtime puts in its place; a stream open elsewhere is fine.
    for command in ["sh-tokenize", "sh-compute", "sh-pairs"] {
        let input = sample(command).0.repeat(if command == "sh-pairs" { 2 } else { 1 });
        for (name, closed) in
            [("/dev/stderr", "2>&-"), ("/dev/stdout", ">&-"), ("/dev/fd/1", ">&-")]
        {
            let run = run_redirected(command, &["-o", name], closed, &input);
            assert_eq!(run.code, Some(1), "{command} -o {name} {closed}: {}", run.stderr);
            let other = if closed == ">&-" { "2>&-" } else { ">&-" };
            let run = run_redirected(command, &["-o", name], other, &input);
            assert_eq!(run.code, Some(0), "{command} -o {name} {other}: {}", run.stderr);
        }
    }
    // Standard input is read, not written: `-o /dev/stdin` with it on a file rewrites the file
    // as `-i f -o f` does (appending to the file being read would never end).
    let path = dir.path().join("input.txt");
    fs::write(&path, "Hello, World!\n".repeat(1000)).unwrap();
    let status = Command::new(binary("sh-tokenize"))
        .args(["-o", "/dev/stdin"])
        .stdin(Stdio::from(fs::File::open(&path).unwrap()))
        .status()
        .unwrap();
    assert!(status.success());
    assert_eq!(fs::read_to_string(&path).unwrap(), "hello world\n".repeat(1000));
}
