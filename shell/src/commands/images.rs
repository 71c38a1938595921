//! `mend images`: the machine's image cache — list it, pull into it, empty it.

use camino::{Utf8Path, Utf8PathBuf};

use crate::cli::ImagesAction;
use crate::error::MendError;
use crate::exec::image::ImageCache;
use crate::oci::ImageRef;

/// `mend images`: lists the cache at `folder` (or the default one), pulls into it or empties it, as `action` says.
pub fn command(action: Option<ImagesAction>, folder: Option<&Utf8Path>) -> Result<u8, MendError> {
    // Located only once it is needed: a suite without images needs no cache (nor a HOME).
    let cache = || ImageCache::locate(folder);
    // A Ctrl-C cuts a pull cleanly: its fetched layers kept for the next, no root half made.
    crate::interrupt::install();
    match action {
        None => {
            print!("{}", listing(&cache()?)?);
            Ok(0)
        }
        Some(ImagesAction::Pull {
            suite: Some(suite), ..
        }) => {
            let images = suite_images(&suite)?;
            if images.is_empty() {
                return Ok(0);
            }
            let cache = cache()?;
            for image in images {
                let unpacked = cache.ensure(&image)?;
                println!("{image}: {} at {}", unpacked.digest, unpacked.root);
            }
            Ok(0)
        }
        Some(ImagesAction::Pull {
            reference: Some(reference),
            ..
        }) => {
            let here = std::env::current_dir()
                .ok()
                .and_then(|dir| Utf8PathBuf::from_path_buf(dir).ok())
                .unwrap_or_else(|| Utf8PathBuf::from("."));
            let image = ImageRef::parse(&reference, &here)?;
            let unpacked = cache()?.pull(&image)?;
            println!("{image}: {} at {}", unpacked.digest, unpacked.root);
            Ok(0)
        }
        Some(ImagesAction::Pull { .. }) => Err(MendError::usage(
            "name the image: mend images pull REF (or --suite SUITE)",
        )),
        Some(ImagesAction::Prune) => {
            let cache = cache()?;
            let (images, bytes) = cache.prune()?;
            println!(
                "removed {images} images ({}) from {}",
                size(bytes),
                cache.dir()
            );
            Ok(0)
        }
    }
}

/// Every image the suite's tasks run in (the suite's own for a task that names none), once each.
fn suite_images(path: &Utf8Path) -> Result<Vec<ImageRef>, MendError> {
    let suite = crate::eval::suite::Suite::load(path)?;
    let mut images = Vec::new();
    for (_, folder) in &suite.tasks {
        let task = crate::task::Task::load(&folder.join(crate::task::TASK_FILE_NAME))?;
        let environment = task.environment.or_else(|| suite.environment.clone());
        if let Some(image) = environment.map(|environment| environment.image) {
            if !images.contains(&image) {
                images.push(image);
            }
        }
    }
    Ok(images)
}

/// One line per image: digest, size on disk, the references that named it.
pub fn listing(cache: &ImageCache) -> Result<String, MendError> {
    let listed = cache.list()?;
    if listed.is_empty() {
        return Ok(format!("no images in {}\n", cache.dir()));
    }
    let mut text = format!("{} images in {}\n", listed.len(), cache.dir());
    for image in listed {
        text.push_str(&format!(
            "{}  {:>9}  {}\n",
            image.digest,
            size(image.bytes),
            image.references.join(", ")
        ));
    }
    Ok(text)
}

fn size(bytes: u64) -> String {
    match bytes {
        0..1_000_000 => format!("{:.1} kB", bytes as f64 / 1e3),
        1_000_000..1_000_000_000 => format!("{:.1} MB", bytes as f64 / 1e6),
        _ => format!("{:.2} GB", bytes as f64 / 1e9),
    }
}
