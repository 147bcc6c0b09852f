//! Pictures as images: cells as squares on a grid, the placed piece in a brighter colour,
//! the panel as text beside the board (DejaVu Sans Mono, bundled, so the columns line up);
//! an animated GIF of a game excerpt ([`write_gif`]) or one picture as a PNG
//! ([`write_png`]). Both files are written under a temporary name and renamed when done.
//! The pictures are drawn here pixel by pixel (squares and glyphs), not through plotters,
//! whose text drawing loses the glyphs' side bearings (a gap after `1`, `.` or `,`).

use super::{Cell, Picture};
use crate::support::atomic_file::AtomicFile;
use ab_glyph::{point, Font, FontRef, PxScale, ScaleFont};
use anyhow::{ensure, Context, Result};
use std::path::Path;
use std::sync::LazyLock;

/// Side of a cell in pixels.
const CELL: u32 = 20;
const MARGIN: u32 = 10;
/// Height of the title line.
const TITLE: u32 = 26;
/// Panel text size and line height, in pixels.
const FONT_SIZE: f32 = 15.0;
const LINE: u32 = 19;

/// An RGB colour.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
struct Rgb(u8, u8, u8);

const BACKGROUND: Rgb = Rgb(250, 250, 250);
const EMPTY: Rgb = Rgb(232, 234, 238);
const GRID: Rgb = Rgb(205, 208, 214);
const FILLED: Rgb = Rgb(84, 104, 138);
const PLACED: Rgb = Rgb(255, 159, 28);
const TEXT: Rgb = Rgb(30, 30, 30);

static FONT: LazyLock<FontRef<'static>> =
    LazyLock::new(|| FontRef::try_from_slice(dejavu::sans_mono::regular()).expect("the bundled font loads"));

/// Width of a panel character in pixels.
fn char_width() -> f32 {
    let font = FONT.as_scaled(PxScale::from(FONT_SIZE));
    font.h_advance(font.glyph_id('0'))
}

/// The image size that holds every picture of `pictures` (a GIF's frames share one size).
fn size_of(pictures: &[Picture]) -> (u32, u32) {
    let (mut width, mut height) = (0, 0);
    for picture in pictures {
        let board = (picture.width as u32 * CELL, picture.height as u32 * CELL);
        let panel_chars = picture.panel.iter().map(|l| l.chars().count()).max().unwrap_or(0);
        let panel_width = (panel_chars as f32 * char_width()).ceil() as u32;
        let title_width = (picture.title.chars().count() as f32 * char_width()).ceil() as u32;
        width = width.max((MARGIN + board.0 + 2 * MARGIN + panel_width).max(MARGIN + title_width) + MARGIN);
        height = height.max(TITLE + board.1.max(picture.panel.len() as u32 * LINE) + 2 * MARGIN);
    }
    (width, height)
}

/// An RGB image being drawn.
struct Canvas {
    width: u32,
    height: u32,
    pixels: Vec<u8>,
}

impl Canvas {
    fn new((width, height): (u32, u32)) -> Canvas {
        let pixels = [BACKGROUND.0, BACKGROUND.1, BACKGROUND.2].repeat(width as usize * height as usize);
        Canvas { width, height, pixels }
    }

    /// Mixes `colour` into the pixel at (x, y) with weight `alpha` (0..=1).
    fn blend(&mut self, x: i64, y: i64, colour: Rgb, alpha: f32) {
        if x < 0 || y < 0 || x >= self.width as i64 || y >= self.height as i64 {
            return;
        }
        let i = (y as usize * self.width as usize + x as usize) * 3;
        let alpha = alpha.clamp(0.0, 1.0);
        for (channel, value) in [colour.0, colour.1, colour.2].into_iter().enumerate() {
            let old = self.pixels[i + channel] as f32;
            self.pixels[i + channel] = (old + (value as f32 - old) * alpha).round() as u8;
        }
    }

    fn rectangle(&mut self, left: u32, top: u32, width: u32, height: u32, colour: Rgb) {
        for y in top..top + height {
            for x in left..left + width {
                self.blend(x as i64, y as i64, colour, 1.0);
            }
        }
    }

    /// Writes `text` with its top at `top`.
    fn text(&mut self, text: &str, left: u32, top: u32) {
        let font = FONT.as_scaled(PxScale::from(FONT_SIZE));
        let baseline = top as f32 + font.ascent();
        let mut caret = left as f32;
        for c in text.chars() {
            let mut glyph = font.scaled_glyph(c);
            glyph.position = point(caret, baseline);
            caret += font.h_advance(glyph.id);
            if let Some(outline) = FONT.outline_glyph(glyph) {
                let bounds = outline.px_bounds();
                outline.draw(|x, y, coverage| {
                    self.blend(bounds.min.x as i64 + x as i64, bounds.min.y as i64 + y as i64, TEXT, coverage)
                });
            }
        }
    }
}

/// `picture` as the PNG and GIF frames draw it: (width, height) in pixels and the RGB
/// bytes, row by row from the top (what a Gymnasium `rgb_array` render returns).
pub fn rgb_pixels(picture: &Picture) -> ((u32, u32), Vec<u8>) {
    let size = size_of(std::slice::from_ref(picture));
    (size, rgb(picture, size))
}

/// Draws `picture` on an image of `size`: the RGB bytes, row by row from the top.
fn rgb(picture: &Picture, size: (u32, u32)) -> Vec<u8> {
    let mut canvas = Canvas::new(size);
    canvas.text(&picture.title, MARGIN, 4);
    let top = TITLE + MARGIN / 2;
    for y in 0..picture.height {
        for x in 0..picture.width {
            let colour = match picture.cell(x, y) {
                Cell::Empty => EMPTY,
                Cell::Filled => FILLED,
                Cell::Placed => PLACED,
            };
            let (left, upper) = (MARGIN + x as u32 * CELL, top + (picture.height - 1 - y) as u32 * CELL);
            // The grid: a one-pixel line on the cell's top and left, and the board's edge.
            canvas.rectangle(left, upper, CELL, CELL, GRID);
            canvas.rectangle(left + 1, upper + 1, CELL - 1, CELL - 1, colour);
        }
    }
    let board_bottom = top + picture.height as u32 * CELL;
    canvas.rectangle(MARGIN, board_bottom, picture.width as u32 * CELL + 1, 1, GRID);
    canvas.rectangle(MARGIN + picture.width as u32 * CELL, top, 1, picture.height as u32 * CELL, GRID);
    let panel_left = MARGIN + picture.width as u32 * CELL + 2 * MARGIN;
    for (i, line) in picture.panel.iter().enumerate() {
        canvas.text(line, panel_left, top + i as u32 * LINE);
    }
    canvas.pixels
}

/// The GIF's one palette: the picture's colours and greys between the text and the
/// background for the text's anti-aliasing. Every pixel is mapped to its nearest entry, so
/// frames share the palette and compress well.
fn palette() -> Vec<Rgb> {
    let mut colours = vec![BACKGROUND, EMPTY, GRID, FILLED, PLACED, TEXT];
    for step in 1..10u8 {
        let mix = |a: u8, b: u8| (a as u32 + (b as u32 - a as u32) * step as u32 / 10) as u8;
        colours.push(Rgb(mix(TEXT.0, BACKGROUND.0), mix(TEXT.1, BACKGROUND.1), mix(TEXT.2, BACKGROUND.2)));
    }
    colours
}

/// An RGB buffer as indices of `palette` (nearest colour; repeated colours looked up once).
fn indexed(buffer: &[u8], palette: &[Rgb]) -> Vec<u8> {
    let mut known: std::collections::HashMap<[u8; 3], u8> = std::collections::HashMap::new();
    buffer
        .chunks_exact(3)
        .map(|pixel| {
            *known.entry([pixel[0], pixel[1], pixel[2]]).or_insert_with(|| {
                let distance = |c: &Rgb| {
                    let d = |a: u8, b: u8| (a as i32 - b as i32).pow(2);
                    d(c.0, pixel[0]) + d(c.1, pixel[1]) + d(c.2, pixel[2])
                };
                (0..palette.len()).min_by_key(|&i| distance(&palette[i])).expect("a palette") as u8
            })
        })
        .collect()
}

/// The smallest rectangle (left, top, width, height) holding every pixel that differs
/// between two frames of `width` pixels a row, or `None` when they are the same.
fn changed(previous: &[u8], next: &[u8], width: usize) -> Option<(usize, usize, usize, usize)> {
    let (mut left, mut top, mut right, mut bottom) = (usize::MAX, usize::MAX, 0, 0);
    for (i, (a, b)) in previous.iter().zip(next).enumerate() {
        if a != b {
            let (x, y) = (i % width, i / width);
            (left, top, right, bottom) = (left.min(x), top.min(y), right.max(x), bottom.max(y));
        }
    }
    (left != usize::MAX).then(|| (left, top, right - left + 1, bottom - top + 1))
}

/// Writes `pictures` as an animated GIF, `delay_ms` between frames (the last one shown
/// three times as long), looping. After the first frame only the rectangle that changed
/// is stored.
pub fn write_gif(path: &Path, pictures: &[Picture], delay_ms: u64) -> Result<()> {
    ensure!(!pictures.is_empty(), "no move to draw in {}", path.display());
    let size = size_of(pictures);
    let (width, height) = (u16::try_from(size.0)?, u16::try_from(size.1)?);
    // GIF delays are in hundredths of a second; browsers treat less than 2 as slow.
    let delay = (delay_ms / 10).clamp(2, u16::MAX as u64 / 3) as u16;
    let palette = palette();
    let flat: Vec<u8> = palette.iter().flat_map(|c| [c.0, c.1, c.2]).collect();
    AtomicFile::write_with(path, |file| {
        let mut encoder = gif::Encoder::new(std::io::BufWriter::new(file), width, height, &flat)?;
        encoder.set_repeat(gif::Repeat::Infinite)?;
        let mut previous: Option<Vec<u8>> = None;
        for (i, picture) in pictures.iter().enumerate() {
            let pixels = indexed(&rgb(picture, size), &palette);
            let (left, top, w, h) = match &previous {
                None => (0, 0, size.0 as usize, size.1 as usize),
                // An unchanged picture still takes its time: one pixel redrawn.
                Some(before) => changed(before, &pixels, size.0 as usize).unwrap_or((0, 0, 1, 1)),
            };
            let mut region = Vec::with_capacity(w * h);
            for y in top..top + h {
                region.extend_from_slice(&pixels[y * size.0 as usize + left..y * size.0 as usize + left + w]);
            }
            let frame = gif::Frame {
                left: left as u16,
                top: top as u16,
                width: w as u16,
                height: h as u16,
                buffer: std::borrow::Cow::Owned(region),
                delay: if i + 1 == pictures.len() { 3 * delay } else { delay },
                dispose: gif::DisposalMethod::Keep,
                ..gif::Frame::default()
            };
            encoder.write_frame(&frame).context("cannot write a GIF frame")?;
            previous = Some(pixels);
        }
        Ok(())
    })
}

/// Writes one picture as a PNG.
pub fn write_png(path: &Path, picture: &Picture) -> Result<()> {
    let size = size_of(std::slice::from_ref(picture));
    let pixels = rgb(picture, size);
    AtomicFile::write_with(path, |file| {
        let mut encoder = png::Encoder::new(std::io::BufWriter::new(file), size.0, size.1);
        encoder.set_color(png::ColorType::Rgb);
        encoder.set_depth(png::BitDepth::Eight);
        let mut writer = encoder.write_header()?;
        writer.write_image_data(&pixels)?;
        writer.finish()?;
        Ok(())
    })
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
        let buffer = rgb(&picture, size);
        let pixel = |x: u32, y: u32| {
            let i = (y * size.0 + x) as usize * 3;
            Rgb(buffer[i], buffer[i + 1], buffer[i + 2])
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
    fn the_gif_frames_put_together_are_the_pictures() {
        // Three pictures: a piece lands, then nothing changes, then a cell fills.
        let board = |cells: &'static [(usize, usize)]| {
            Picture::after_lock("t".into(), (4, 3), move |x, y| cells.contains(&(x, y)), &[], 0, vec!["p".into()])
        };
        let pictures = [board(&[(0, 0)]), board(&[(0, 0)]), board(&[(0, 0), (3, 2)])];
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("a.gif");
        write_gif(&path, &pictures, 100).unwrap();
        let mut options = gif::DecodeOptions::new();
        options.set_color_output(gif::ColorOutput::Indexed);
        let mut decoder = options.read_info(std::fs::File::open(&path).unwrap()).unwrap();
        let size = size_of(&pictures);
        let mut screen = vec![0u8; (size.0 * size.1) as usize];
        let mut frames = 0;
        while let Some(frame) = decoder.read_next_frame().unwrap() {
            for y in 0..frame.height as usize {
                for x in 0..frame.width as usize {
                    let at = (frame.top as usize + y) * size.0 as usize + frame.left as usize + x;
                    screen[at] = frame.buffer[y * frame.width as usize + x];
                }
            }
            assert_eq!(screen, indexed(&rgb(&pictures[frames], size), &palette()), "frame {frames}");
            frames += 1;
        }
        assert_eq!(frames, 3);
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
