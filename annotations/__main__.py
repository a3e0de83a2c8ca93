import sys

from annotations.cli import main

sys.exit(main())
