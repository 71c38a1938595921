//! An editable install of the original in the interpreter's environment — a `.pth` line, an
//! old-style `.egg-link` (`setup.py develop`), a setuptools `__editable__` finder — makes Python
//! import the original's folders. mend points the same folders of the copy at the front of the
//! import path instead, so the copy's code is what runs, whatever the layout (`lib/`,
//! `package_dir`), under bubblewrap (which hides the original) and without a sandbox alike.

use std::fs;

use camino::{Utf8Path, Utf8PathBuf};

/// The folders of `original` (relative to it, `.` for itself) that an editable install in
/// `python`'s environment imports, in the order found.
pub(crate) fn folders_imported(python: &Utf8Path, original: &Utf8Path) -> Vec<String> {
    let mut found = Vec::new();
    for site in site_packages(python) {
        let Ok(entries) = fs::read_dir(&site) else {
            continue;
        };
        let mut names: Vec<String> = entries
            .filter_map(|entry| entry.ok()?.file_name().into_string().ok())
            .collect();
        names.sort();
        for name in names {
            let Ok(text) = fs::read_to_string(site.join(&name)) else {
                continue;
            };
            let paths: Vec<Utf8PathBuf> = if name.ends_with(".pth") {
                text.lines()
                    .filter(|line| !line.starts_with('#') && !line.starts_with("import "))
                    .map(|line| Utf8PathBuf::from(line.trim()))
                    .collect()
            } else if name.ends_with(".egg-link") {
                text.lines()
                    .take(1)
                    .map(|line| Utf8PathBuf::from(line.trim()))
                    .collect()
            } else if name.starts_with("__editable__") && name.ends_with("_finder.py") {
                mapped_folders(&text)
            } else {
                continue;
            };
            for path in paths {
                if let Ok(inside) = path.strip_prefix(original) {
                    let relative = match inside.as_str() {
                        "" => ".".to_owned(),
                        inside => inside.to_owned(),
                    };
                    if !found.contains(&relative) {
                        found.push(relative);
                    }
                }
            }
        }
    }
    found
}

/// The folders a setuptools finder's `MAPPING = {'pkg': '/path/to/pkg'}` imports from: each
/// package's parent.
fn mapped_folders(text: &str) -> Vec<Utf8PathBuf> {
    let Some(mapping) = text.lines().find_map(|line| line.strip_prefix("MAPPING")) else {
        return Vec::new();
    };
    mapping
        .split(['\'', '"'])
        .filter(|part| part.starts_with('/'))
        .filter_map(|path| Utf8Path::new(path).parent().map(Utf8Path::to_path_buf))
        .collect()
}

/// `VENV/lib/pythonX.Y/site-packages` of an interpreter named by its path in a venv.
fn site_packages(python: &Utf8Path) -> Vec<Utf8PathBuf> {
    let Some(prefix) = python.parent().and_then(Utf8Path::parent) else {
        return Vec::new();
    };
    let Ok(entries) = fs::read_dir(prefix.join("lib")) else {
        return Vec::new();
    };
    entries
        .filter_map(|entry| entry.ok()?.file_name().into_string().ok())
        .filter(|name| name.starts_with("python"))
        .map(|name| prefix.join("lib").join(name).join("site-packages"))
        .filter(|site| site.is_dir())
        .collect()
}

#[cfg(test)]
mod tests {
    use super::folders_imported;
    use camino::Utf8PathBuf;

    #[test]
    fn each_kind_of_editable_install_names_the_original_folders_it_imports() {
        let dir = tempfile::tempdir().unwrap();
        let root = Utf8PathBuf::from_path_buf(dir.path().to_path_buf()).unwrap();
        let site = root.join("venv/lib/python3.11/site-packages");
        std::fs::create_dir_all(&site).unwrap();
        std::fs::create_dir_all(root.join("venv/bin")).unwrap();
        let original = root.join("project");
        let write = |name: &str, text: String| std::fs::write(site.join(name), text).unwrap();
        write("quire.egg-link", format!("{original}/lib\n.\n"));
        write(
            "easy-install.pth",
            format!("import sys\n{original}/lib\n/elsewhere\n"),
        );
        write("__editable__.tally-0.3.1.pth", format!("{original}/src\n"));
        write(
            "__editable___folio_1_0_finder.py",
            format!("import sys\nMAPPING = {{'folio': '{original}/packages/folio'}}\nNAMESPACES = {{}}\n"),
        );
        write("flat.pth", format!("{original}\n"));
        assert_eq!(
            folders_imported(&root.join("venv/bin/python"), &original),
            ["src", "packages", "lib", "."]
        );
        assert_eq!(
            folders_imported(&root.join("venv/bin/python"), &root.join("other")),
            Vec::<String>::new()
        );
    }
}
