//! One backend type for two backends, so the chart code is compiled once.
//!
//! Every `draw` function is generic over plotters' `DrawingBackend`, so each backend it runs
//! on gets its own copy of all the chart code. The page draws on a canvas and exports SVG:
//! drawing both through [`EitherBackend`]`<SVGBackend, CanvasBackend>` keeps a single copy in
//! the wasm (about 10 KB gzip less). Each call is passed on to the backend inside; errors keep
//! their text (`Drawing backend error: ...`).

use std::error::Error;
use std::fmt;

use plotters_backend::{
    BackendColor, BackendCoord, BackendStyle, BackendTextStyle, DrawingBackend, DrawingErrorKind,
};

/// Either backend `A` or backend `B`.
pub enum EitherBackend<A, B> {
    /// The first backend (the SVG export's).
    Left(A),
    /// The second backend (the screen's).
    Right(B),
}

/// A backend error, as its text.
#[derive(Debug)]
pub struct BackendError(String);

impl fmt::Display for BackendError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

impl Error for BackendError {}

type Res<T> = Result<T, DrawingErrorKind<BackendError>>;

fn conv<T, E: Error + Send + Sync>(r: Result<T, DrawingErrorKind<E>>) -> Res<T> {
    r.map_err(|e| match e {
        DrawingErrorKind::DrawingError(e) => {
            DrawingErrorKind::DrawingError(BackendError(e.to_string()))
        }
        DrawingErrorKind::FontError(e) => DrawingErrorKind::FontError(e),
    })
}

macro_rules! pass {
    ($self:ident, $b:ident => $call:expr) => {
        match $self {
            EitherBackend::Left($b) => conv($call),
            EitherBackend::Right($b) => conv($call),
        }
    };
}

impl<A: DrawingBackend, B: DrawingBackend> DrawingBackend for EitherBackend<A, B> {
    type ErrorType = BackendError;

    fn get_size(&self) -> (u32, u32) {
        match self {
            EitherBackend::Left(b) => b.get_size(),
            EitherBackend::Right(b) => b.get_size(),
        }
    }

    fn ensure_prepared(&mut self) -> Res<()> {
        pass!(self, b => b.ensure_prepared())
    }

    fn present(&mut self) -> Res<()> {
        pass!(self, b => b.present())
    }

    fn draw_pixel(&mut self, point: BackendCoord, color: BackendColor) -> Res<()> {
        pass!(self, b => b.draw_pixel(point, color))
    }

    fn draw_line<S: BackendStyle>(
        &mut self,
        from: BackendCoord,
        to: BackendCoord,
        style: &S,
    ) -> Res<()> {
        pass!(self, b => b.draw_line(from, to, style))
    }

    fn draw_rect<S: BackendStyle>(
        &mut self,
        upper_left: BackendCoord,
        bottom_right: BackendCoord,
        style: &S,
        fill: bool,
    ) -> Res<()> {
        pass!(self, b => b.draw_rect(upper_left, bottom_right, style, fill))
    }

    fn draw_path<S: BackendStyle, I: IntoIterator<Item = BackendCoord>>(
        &mut self,
        path: I,
        style: &S,
    ) -> Res<()> {
        pass!(self, b => b.draw_path(path, style))
    }

    fn draw_circle<S: BackendStyle>(
        &mut self,
        center: BackendCoord,
        radius: u32,
        style: &S,
        fill: bool,
    ) -> Res<()> {
        pass!(self, b => b.draw_circle(center, radius, style, fill))
    }

    fn fill_polygon<S: BackendStyle, I: IntoIterator<Item = BackendCoord>>(
        &mut self,
        vert: I,
        style: &S,
    ) -> Res<()> {
        pass!(self, b => b.fill_polygon(vert, style))
    }

    fn draw_text<S: BackendTextStyle>(
        &mut self,
        text: &str,
        style: &S,
        pos: BackendCoord,
    ) -> Res<()> {
        pass!(self, b => b.draw_text(text, style, pos))
    }

    fn estimate_text_size<S: BackendTextStyle>(&self, text: &str, style: &S) -> Res<(u32, u32)> {
        pass!(self, b => b.estimate_text_size(text, style))
    }

    fn blit_bitmap(&mut self, pos: BackendCoord, size: (u32, u32), src: &[u8]) -> Res<()> {
        pass!(self, b => b.blit_bitmap(pos, size, src))
    }
}

/// A backend that cannot exist: the `B` of [`EitherBackend`] where only `A` is ever drawn on
/// (native SVG rendering).
pub enum NoBackend {}

impl DrawingBackend for NoBackend {
    type ErrorType = BackendError;

    fn get_size(&self) -> (u32, u32) {
        match *self {}
    }

    fn ensure_prepared(&mut self) -> Res<()> {
        match *self {}
    }

    fn present(&mut self) -> Res<()> {
        match *self {}
    }

    fn draw_pixel(&mut self, _: BackendCoord, _: BackendColor) -> Res<()> {
        match *self {}
    }
}
