# The wheel's build: setuptools (Debian's python3-setuptools and python3-wheel) around the
# project's own CMake, so the wheel holds the module `make python` builds:
#   pip wheel --no-build-isolation --no-deps ./python      (from the repository's root)
# INFERLINT_BUILD_DIR names a build folder to build the module in (a configured one is
# reused: the tests build the wheel from the build they test); else a Release build of
# its own under setuptools' temporary folder.
import os
import pathlib
import shutil
import subprocess

from setuptools import Extension, setup
from setuptools.command.build_ext import build_ext

# The repository: this file's parent folder, or INFERLINT_SOURCE_DIR (the tests build from a copy of python/).
ROOT = pathlib.Path(os.environ.get("INFERLINT_SOURCE_DIR") or pathlib.Path(__file__).resolve().parent.parent)


class CMakeExtension(Extension):
    def __init__(self, name: str) -> None:
        super().__init__(name, sources=[])


class CMakeBuild(build_ext):
    def build_extension(self, ext: Extension) -> None:
        build = pathlib.Path(os.environ.get("INFERLINT_BUILD_DIR") or pathlib.Path(self.build_temp) / "cmake").resolve()
        if not (build / "CMakeCache.txt").is_file():
            subprocess.check_call(["cmake", "-S", str(ROOT), "-B", str(build), "-DCMAKE_BUILD_TYPE=Release",
                                   "-DCMAKE_CXX_FLAGS_RELEASE=-O2 -DNDEBUG", "-DINFERLINT_TESTS=OFF"])
        subprocess.check_call(["cmake", "--build", str(build), "--target", "inferlint_python",
                               "-j", str(os.cpu_count() or 2)])
        built = sorted((build / "python" / "inferlint").glob("_native*.so"))
        if not built:
            raise RuntimeError(f"{build}/python/inferlint: no _native module was built (pybind11-dev, python3-dev?)")
        dest = pathlib.Path(self.get_ext_fullpath(ext.name))
        dest.parent.mkdir(parents=True, exist_ok=True)
        shutil.copy2(built[0], dest)


setup(
    packages=["inferlint"],
    package_data={"inferlint": ["*.pyi", "py.typed"]},
    ext_modules=[CMakeExtension("inferlint._native")],
    cmdclass={"build_ext": CMakeBuild},
)
