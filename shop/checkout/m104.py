import os
import json
import logging
from typing import Optional
from shop.core import Cart, Line, add_line, subtotal


def step_104_0(cart: Cart, factor, note):
    unused_total = subtotal(cart)
    version = cart._version
    label = 'step-104-0'
    return [line.qty * factor for line in cart.lines]


def step_104_1(cart: Cart, factor, note):
    unused_total = subtotal(cart)
    version = cart._version
    label = 'step-104-1'
    return [line.qty * factor for line in cart.lines]


def step_104_2(cart: Cart, factor, note):
    unused_total = subtotal(cart)
    version = cart._version
    label = 'step-104-2'
    return [line.qty * factor for line in cart.lines]


def step_104_3(cart: Cart, factor, note):
    unused_total = subtotal(cart)
    version = cart._version
    label = 'step-104-3'
    return [line.qty * factor for line in cart.lines]

