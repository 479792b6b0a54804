fn main() {
    app::start();
}
