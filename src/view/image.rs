//! Pictures as images: cells as squares on a grid, the placed piece in a brighter colour,
//! the panel as text beside the board (DejaVu Sans Mono, bundled); an animated GIF of a
//! game excerpt ([`write_gif`]) or one picture as a PNG ([`write_png`]). Both files are
//! written under a temporary name and renamed when done.

use super::{Cell, Picture};
use crate::report::atomic_file::AtomicFile;
use anyhow::{ensure, Context, Result};
use plotters::prelude::*;
use std::path::Path;

/// Side of a cell in pixels.
const CELL: u32 = 14;
const MARGIN: u32 = 8;
/// Height of the title line.
const TITLE: u32 = 22;
/// Panel text size and line height.
const FONT: u32 = 12;
const LINE: u32 = 15;
/// Width of a panel character (DejaVu Sans Mono at 12 px is 7.2 px wide).
const CHAR: f64 = 7.3;

const BACKGROUND: RGBColor = RGBColor(250, 250, 250);
const EMPTY: RGBColor = RGBColor(232, 234, 238);
const GRID: RGBColor = RGBColor(205, 208, 214);
const FILLED: RGBColor = RGBColor(84, 104, 138);
const PLACED: RGBColor = RGBColor(255, 159, 28);
const TEXT: RGBColor = RGBColor(30, 30, 30);

/// The image size that holds every picture of `pictures` (a GIF's frames share one size).
fn size_of(pictures: &[Picture]) -> (u32, u32) {
    let (mut width, mut height) = (0, 0);
    for picture in pictures {
        let board = (picture.width as u32 * CELL, picture.height as u32 * CELL);
        let panel_chars = picture.panel.iter().map(|l| l.chars().count()).max().unwrap_or(0);
        let panel_width = (panel_chars as f64 * CHAR).ceil() as u32;
        let title_width = (picture.title.chars().count() as f64 * CHAR).ceil() as u32;
        width = width.max((MARGIN + board.0 + 2 * MARGIN + panel_width).max(title_width) + MARGIN);
        height = height.max(TITLE + board.1.max(picture.panel.len() as u32 * LINE) + 2 * MARGIN);
    }
    (width, height)
}

/// Draws `picture` on an image of `size`.
fn draw<B: DrawingBackend>(picture: &Picture, area: &DrawingArea<B, plotters::coord::Shift>) -> Result<()>
where
    B::ErrorType: 'static,
{
    crate::report::text::register_font();
    let error = |e: DrawingAreaErrorKind<B::ErrorType>| anyhow::anyhow!("cannot draw the picture: {e}");
    area.fill(&BACKGROUND).map_err(error)?;
    let font = ("monospace", FONT).into_font().color(&TEXT);
    let title_font = ("monospace", FONT).into_font().style(FontStyle::Bold).color(&TEXT);
    area.draw(&Text::new(picture.title.clone(), (MARGIN as i32, 5), title_font)).map_err(error)?;
    let top = TITLE as i32 + MARGIN as i32 / 2;
    for y in 0..picture.height {
        for x in 0..picture.width {
            let left = (MARGIN + x as u32 * CELL) as i32;
            let upper = top + ((picture.height - 1 - y) as u32 * CELL) as i32;
            let colour = match picture.cell(x, y) {
                Cell::Empty => EMPTY,
                Cell::Filled => FILLED,
                Cell::Placed => PLACED,
            };
            let corners = [(left, upper), (left + CELL as i32, upper + CELL as i32)];
            area.draw(&Rectangle::new(corners, colour.filled())).map_err(error)?;
            area.draw(&Rectangle::new(corners, GRID.stroke_width(1))).map_err(error)?;
        }
    }
    let panel_left = (MARGIN + picture.width as u32 * CELL + 2 * MARGIN) as i32;
    for (i, line) in picture.panel.iter().enumerate() {
        let position = (panel_left, top + (i as u32 * LINE) as i32);
        area.draw(&Text::new(line.clone(), position, font.clone())).map_err(error)?;
    }
    Ok(())
}

/// Draws `picture` into an RGB buffer of `size`.
fn rgb(picture: &Picture, size: (u32, u32)) -> Result<Vec<u8>> {
    let mut buffer = vec![0u8; size.0 as usize * size.1 as usize * 3];
    {
        let area = BitMapBackend::with_buffer(&mut buffer, size).into_drawing_area();
        draw(picture, &area)?;
        area.present().map_err(|e| anyhow::anyhow!("cannot draw the picture: {e}"))?;
    }
    Ok(buffer)
}

/// Writes `pictures` as an animated GIF, `delay_ms` between frames (the last one shown
/// three times as long), looping.
pub fn write_gif(path: &Path, pictures: &[Picture], delay_ms: u64) -> Result<()> {
    ensure!(!pictures.is_empty(), "no move to draw in {}", path.display());
    let size = size_of(pictures);
    let (width, height) = (u16::try_from(size.0)?, u16::try_from(size.1)?);
    // GIF delays are in hundredths of a second; browsers treat less than 2 as slow.
    let delay = (delay_ms / 10).clamp(2, u16::MAX as u64 / 3) as u16;
    AtomicFile::write_with(path, |file| {
        let mut encoder = gif::Encoder::new(std::io::BufWriter::new(file), width, height, &[])?;
        encoder.set_repeat(gif::Repeat::Infinite)?;
        for (i, picture) in pictures.iter().enumerate() {
            let buffer = rgb(picture, size)?;
            // Speed 10 of NeuQuant: the pictures have a handful of colours besides the
            // text's anti-aliasing.
            let mut frame = gif::Frame::from_rgb_speed(width, height, &buffer, 10);
            frame.delay = if i + 1 == pictures.len() { 3 * delay } else { delay };
            encoder.write_frame(&frame).context("cannot write a GIF frame")?;
        }
        Ok(())
    })
}

/// Writes one picture as a PNG.
pub fn write_png(path: &Path, picture: &Picture) -> Result<()> {
    let size = size_of(std::slice::from_ref(picture));
    let file = AtomicFile::create(path)?;
    {
        let area = BitMapBackend::new(file.temporary_path(), size).into_drawing_area();
        draw(picture, &area)?;
        area.present().map_err(|e| anyhow::anyhow!("cannot write {}: {e}", path.display()))?;
    }
    file.commit()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn picture() -> Picture {
        Picture::after_lock("title".into(), (4, 3), |x, y| y == 0 && x < 3, &[(2, 0)], 0, vec!["lines 1".into()])
    }

    #[test]
    fn the_placed_piece_is_drawn_in_its_colour() {
        let picture = picture();
        let size = size_of(std::slice::from_ref(&picture));
        let buffer = rgb(&picture, size).unwrap();
        let pixel = |x: u32, y: u32| {
            let i = (y * size.0 + x) as usize * 3;
            RGBColor(buffer[i], buffer[i + 1], buffer[i + 2])
        };
        let centre = |cx: u32, cy_from_floor: u32| {
            let top = TITLE + MARGIN / 2 + (picture.height as u32 - 1 - cy_from_floor) * CELL;
            pixel(MARGIN + cx * CELL + CELL / 2, top + CELL / 2)
        };
        assert_eq!(centre(2, 0), PLACED);
        assert_eq!(centre(0, 0), FILLED);
        assert_eq!(centre(3, 0), EMPTY);
        assert_eq!(centre(0, 2), EMPTY);
    }

    #[test]
    fn gif_and_png_files_are_written() {
        let dir = tempfile::tempdir().unwrap();
        let gif_path = dir.path().join("a.gif");
        write_gif(&gif_path, &[picture(), picture()], 100).unwrap();
        let bytes = std::fs::read(&gif_path).unwrap();
        assert!(bytes.starts_with(b"GIF89a"), "{:?}", &bytes[..6]);
        let png_path = dir.path().join("a.png");
        write_png(&png_path, &picture()).unwrap();
        assert!(std::fs::read(&png_path).unwrap().starts_with(b"\x89PNG"));
        assert_eq!(std::fs::read_dir(dir.path()).unwrap().count(), 2, "no temporary left");
    }
}
