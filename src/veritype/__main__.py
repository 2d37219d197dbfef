from veritype.cli import main

main()
