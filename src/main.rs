//! The binary Trunk builds: installs the panic hook and mounts the app.
fn main() {
    console_error_panic_hook::set_once();
    leptos::mount::mount_to_body(handwave::app::App);
}
