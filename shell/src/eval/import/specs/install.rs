//! What SWE-bench's harness runs in an instance's testbed besides the tests, per repository
//! and version, copied as written from its `MAP_REPO_VERSION_TO_SPECS` (swebench 4.1, the last
//! release that ships the table; a 5.x row carries the same lines in its `eval_script`). The
//! harness runs them at two moments:
//!
//! - when it builds the instance's image (`make_repo_script_list`): `pre_install`, then
//!   `install`, in the checkout at its base commit;
//! - in every eval script (`make_eval_script_list`): `eval_commands` first, then, after the
//!   change is applied, `install` again, then the test patch and the tests.
//!
//! Which of these mend runs, and how, is [`super::super::set_up`]'s business; this table only
//! says what the harness runs.

/// The harness's set-up lines for a set of versions of a repository.
struct Spec {
    repo: &'static str,
    /// Space-separated versions, as the instances' `version` field spells them.
    versions: &'static str,
    /// `pre_install`, in parts joined in order (many versions share their first lines).
    pre_install: &'static [&'static [&'static str]],
    install: &'static str,
    eval_commands: &'static [&'static str],
}

const PIP_EDITABLE: &str = "python -m pip install -e .";

const fn editable(repo: &'static str, versions: &'static str) -> Spec {
    Spec {
        repo,
        versions,
        pre_install: &[],
        install: PIP_EDITABLE,
        eval_commands: &[],
    }
}

const ASTROPY: &str = "python -m pip install -e .[test] --verbose";
const ASTROPY_PIN: &[&str] = &[
    r#"sed -i 's/requires = \["setuptools",/requires = \["setuptools==68.0.0",/' pyproject.toml"#,
];

const DJANGO_LOCALES: &[&str] = &[
    "apt-get update && apt-get install -y locales",
    "echo 'en_US UTF-8' > /etc/locale.gen",
    "locale-gen en_US.UTF-8",
];
const DJANGO_OLD_EXPORTS: &[&str] = &[
    "export LANG=en_US.UTF-8",
    "export LC_ALL=en_US.UTF-8",
    "export PYTHONIOENCODING=utf8",
    "export LANGUAGE=en_US:en",
];
const DJANGO_3_EVAL: &[&str] = &[
    "sed -i '/en_US.UTF-8/s/^# //g' /etc/locale.gen && locale-gen",
    "export LANG=en_US.UTF-8",
    "export LANGUAGE=en_US:en",
    "export LC_ALL=en_US.UTF-8",
];

const MATPLOTLIB_OLD_APT: &[&str] =
    &["apt-get -y update && apt-get -y upgrade && && apt-get install -y imagemagick ffmpeg"];
const MATPLOTLIB_3_0_APT: &[&str] = &["apt-get -y update && apt-get -y upgrade && apt-get install -y imagemagick ffmpeg libfreetype6-dev pkg-config"];
const MATPLOTLIB_3_1_APT: &[&str] = &["apt-get -y update && apt-get -y upgrade && DEBIAN_FRONTEND=noninteractive apt-get install -y imagemagick ffmpeg libfreetype6-dev pkg-config texlive texlive-latex-extra texlive-fonts-recommended texlive-xetex texlive-luatex cm-super"];
const MATPLOTLIB_3_5_APT: &[&str] = &["apt-get -y update && apt-get -y upgrade && DEBIAN_FRONTEND=noninteractive apt-get install -y imagemagick ffmpeg texlive texlive-latex-extra texlive-fonts-recommended texlive-xetex texlive-luatex cm-super dvipng"];
const QHULL: &[&str] = &[
    r#"QHULL_URL="http://www.qhull.org/download/qhull-2020-src-8.0.2.tgz""#,
    r#"QHULL_TAR="/tmp/qhull-2020-src-8.0.2.tgz""#,
    r#"QHULL_BUILD_DIR="/testbed/build""#,
    r#"wget -O "$QHULL_TAR" "$QHULL_URL""#,
    r#"mkdir -p "$QHULL_BUILD_DIR""#,
    r#"tar -xvzf "$QHULL_TAR" -C "$QHULL_BUILD_DIR""#,
];

const SPHINX: &str = "python -m pip install -e .[test]";
const SPHINX_TOX: &[&str] = &["sed -i 's/pytest/pytest -rA/' tox.ini"];
const SPHINX_PINS: &[&str] = &[
    "sed -i 's/Jinja2>=2.3/Jinja2<3.0/' setup.py",
    "sed -i 's/sphinxcontrib-applehelp/sphinxcontrib-applehelp<=1.0.7/' setup.py",
    "sed -i 's/sphinxcontrib-devhelp/sphinxcontrib-devhelp<=1.0.5/' setup.py",
    "sed -i 's/sphinxcontrib-qthelp/sphinxcontrib-qthelp<=1.0.6/' setup.py",
    "sed -i 's/alabaster>=0.7,<0.8/alabaster>=0.7,<0.7.12/' setup.py",
    r#"sed -i "s/'packaging',/'packaging', 'markupsafe<=2.0.1',/" setup.py"#,
];
const SPHINX_3_HELP_PINS: &[&str] = &[
    "sed -i 's/sphinxcontrib-htmlhelp/sphinxcontrib-htmlhelp<=2.0.4/' setup.py",
    "sed -i 's/sphinxcontrib-serializinghtml/sphinxcontrib-serializinghtml<=1.1.9/' setup.py",
];
const SPHINX_4_1_HELP_PINS: &[&str] = &[
    "grep -q 'sphinxcontrib-htmlhelp>=2.0.0' setup.py && sed -i 's/sphinxcontrib-htmlhelp>=2.0.0/sphinxcontrib-htmlhelp>=2.0.0,<=2.0.4/' setup.py || sed -i 's/sphinxcontrib-htmlhelp/sphinxcontrib-htmlhelp<=2.0.4/' setup.py",
    "grep -q 'sphinxcontrib-serializinghtml>=1.1.5' setup.py && sed -i 's/sphinxcontrib-serializinghtml>=1.1.5/sphinxcontrib-serializinghtml>=1.1.5,<=1.1.9/' setup.py || sed -i 's/sphinxcontrib-serializinghtml/sphinxcontrib-serializinghtml<=1.1.9/' setup.py",
];
const SPHINX_4_2_HELP_PINS: &[&str] = &[
    "sed -i 's/sphinxcontrib-htmlhelp>=2.0.0/sphinxcontrib-htmlhelp>=2.0.0,<=2.0.4/' setup.py",
    "sed -i 's/sphinxcontrib-serializinghtml>=1.1.5/sphinxcontrib-serializinghtml>=1.1.5,<=1.1.9/' setup.py",
];

const SPECS: &[Spec] = &[
    Spec {
        pre_install: &[ASTROPY_PIN],
        install: ASTROPY,
        ..editable("astropy/astropy", "4.1 4.2 4.3 5.0 5.1 5.2 v5.3")
    },
    Spec {
        install: ASTROPY,
        ..editable("astropy/astropy", "0.1 0.2 0.3 0.4 1.1 1.2 1.3 3.0 3.1 3.2")
    },
    Spec {
        pre_install: &[DJANGO_LOCALES],
        install: "python setup.py install",
        eval_commands: DJANGO_OLD_EXPORTS,
        ..editable("django/django", "1.7 1.8 1.9 1.10 1.11 2.0 2.1 2.2")
    },
    Spec {
        install: "python setup.py install",
        ..editable("django/django", "1.4 1.5 1.6")
    },
    Spec {
        eval_commands: DJANGO_3_EVAL,
        ..editable("django/django", "3.0 3.1 3.2")
    },
    editable("django/django", "4.0 4.1 4.2 5.0 5.1 5.2"),
    Spec {
        install: "python -m pip install -e '.[dev]'",
        ..editable("marshmallow-code/marshmallow", "2.18 2.19 2.20 3.0 3.1 3.2 3.4 3.8 3.9 3.10 3.11 3.12 3.13 3.15 3.16 3.19")
    },
    Spec {
        pre_install: &[MATPLOTLIB_OLD_APT],
        install: "python setup.py build; python setup.py install",
        ..editable("matplotlib/matplotlib", "1.0 1.1 1.2 1.3 1.4 1.5 2.0 2.1 2.2")
    },
    Spec {
        pre_install: &[MATPLOTLIB_3_0_APT, QHULL],
        ..editable("matplotlib/matplotlib", "3.0")
    },
    Spec {
        pre_install: &[MATPLOTLIB_3_1_APT, QHULL],
        ..editable("matplotlib/matplotlib", "3.1 3.2 3.3 3.4")
    },
    Spec {
        pre_install: &[MATPLOTLIB_3_5_APT, QHULL],
        ..editable("matplotlib/matplotlib", "3.5 3.6 3.7")
    },
    Spec {
        pre_install: &[MATPLOTLIB_3_5_APT, QHULL],
        install: r#"python -m pip install --no-build-isolation -e ".[dev]""#,
        ..editable("matplotlib/matplotlib", "3.8 3.9")
    },
    editable("mwaskom/seaborn", "0.11"),
    Spec {
        install: "python -m pip install -e .[dev]",
        ..editable("mwaskom/seaborn", "0.12 0.13 0.14")
    },
    editable("pallets/flask", "2.0 2.1 2.2 2.3 3.0 3.1"),
    Spec {
        install: "python -m pip install .",
        ..editable("psf/requests", "0.7 0.8 0.9 0.11 0.13 0.14 1.1 1.2 2.0 2.2 2.3 2.4 2.5 2.7 2.8 2.9 2.10 2.11 2.12 2.17 2.18 2.19 2.22 2.25 2.26 2.27 2.31 3.0")
    },
    Spec {
        install: "python -m pip install -e .[all]",
        ..editable("pvlib/pvlib-python", "0.1 0.2 0.3 0.4 0.5 0.6 0.7 0.8 0.9")
    },
    editable("pydata/xarray", "0.12 0.18 0.19 0.20 2022.03 2022.06 2022.09 2023.07 2024.05"),
    editable("pydicom/pydicom", "1.0 1.1 1.2 1.3 1.4 2.0 2.1 2.2 2.3 2.4 3.0"),
    editable("pylint-dev/astroid", "2.5 2.6 2.7 2.8 2.9 2.10 2.12 2.13 2.14 2.15 2.16 3.0"),
    Spec {
        pre_install: &[&["apt-get update && apt-get install -y libenchant-2-dev hunspell-en-us"]],
        ..editable("pylint-dev/pylint", "2.8")
    },
    editable("pylint-dev/pylint", "2.9 2.10 2.11 2.13 2.14 2.15 2.16 2.17 3.0 3.1 3.2 3.3 4.0"),
    Spec {
        pre_install: &[&["sed -i 's/>=>=/>=/' setup.cfg"]],
        ..editable("pytest-dev/pytest", "6.3")
    },
    editable("pytest-dev/pytest", "4.4 4.5 4.6 5.0 5.1 5.2 5.3 5.4 6.0 6.2 7.0 7.1 7.2 7.4 8.0 8.1 8.2 8.3 8.4"),
    Spec {
        pre_install: &[&["apt-get update && apt-get install -y ffmpeg libsm6 libxext6 libxrender1"]],
        ..editable("pyvista/pyvista", "0.24 0.25 0.26 0.27 0.28 0.29 0.30 0.31 0.32 0.33 0.34 0.35 0.36 0.37 0.38 0.39 0.40 0.41 0.42 0.43")
    },
    editable("pyvista/pyvista", "0.20 0.21 0.22 0.23"),
    Spec {
        install: "python -m pip install -v --no-use-pep517 --no-build-isolation -e .",
        ..editable("scikit-learn/scikit-learn", "0.20 0.21 0.22 1.3 1.4 1.5 1.6")
    },
    Spec {
        pre_install: &[SPHINX_TOX],
        install: SPHINX,
        ..editable("sphinx-doc/sphinx", "1.5 1.6 1.7 1.8 2.0 2.1 2.2 2.3 2.4 4.5 5.0 5.1 5.2 5.3 6.0 6.2 7.0 7.1")
    },
    Spec {
        pre_install: &[SPHINX_TOX, SPHINX_PINS, SPHINX_3_HELP_PINS],
        install: SPHINX,
        ..editable("sphinx-doc/sphinx", "3.0 3.1 3.2 3.3 3.4 3.5 4.0")
    },
    Spec {
        pre_install: &[SPHINX_TOX, SPHINX_PINS, SPHINX_4_1_HELP_PINS],
        install: SPHINX,
        ..editable("sphinx-doc/sphinx", "4.1")
    },
    Spec {
        pre_install: &[SPHINX_TOX, SPHINX_PINS, SPHINX_4_2_HELP_PINS],
        install: SPHINX,
        ..editable("sphinx-doc/sphinx", "4.2 4.3 4.4")
    },
    Spec {
        pre_install: &[SPHINX_TOX, &["apt-get update && apt-get install -y graphviz"]],
        install: SPHINX,
        ..editable("sphinx-doc/sphinx", "7.2 7.3 7.4 8.0 8.1")
    },
    editable("sqlfluff/sqlfluff", "0.4 0.5 0.6 0.8 0.9 0.10 0.11 0.12 0.13 1.0 1.1 1.2 1.3 1.4 2.0 2.1 2.2"),
    editable("sympy/sympy", "0.7 1.0 1.1 1.2 1.4 1.5 1.6 1.7 1.8 1.9 1.10 1.11 1.12 1.13 1.14"),
];

/// What the harness runs in one instance's testbed besides the tests.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub(in crate::eval::import) struct HarnessSteps {
    /// Run once, when the image is built, before `install`.
    pub pre_install: Vec<String>,
    /// Run when the image is built, and again before every test run.
    pub install: String,
    /// Run first by every eval script.
    pub eval_commands: Vec<String>,
}

/// The harness's set-up lines for `repo` at `version`.
pub(in crate::eval::import) fn lookup(repo: &str, version: &str) -> Option<HarnessSteps> {
    let spec = SPECS
        .iter()
        .find(|spec| spec.repo == repo && spec.versions.split(' ').any(|v| v == version))?;
    let owned =
        |lines: &[&str]| -> Vec<String> { lines.iter().map(|line| (*line).to_owned()).collect() };
    Some(HarnessSteps {
        pre_install: spec
            .pre_install
            .iter()
            .flat_map(|part| owned(part))
            .collect(),
        install: spec.install.to_owned(),
        eval_commands: owned(spec.eval_commands),
    })
}

/// Every repository and version the table has, to hold it to the test commands' table.
#[cfg(test)]
pub(in crate::eval::import) fn covered() -> Vec<(&'static str, &'static str)> {
    SPECS
        .iter()
        .flat_map(|spec| spec.versions.split(' ').map(|v| (spec.repo, v)))
        .collect()
}
